"""Clones of one bare remote for the `writers` and `faults` sections: memidx run as a new
process and timed, what an index holds (read without a lock or a rebuild), what the segments of
a commit hold, and a clone's index compared with a fresh rebuild of the same clone."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from memidx.haystack.frames import scan_bytes
from memidx.index.store import open_store
from tests.gitops.compare import compare_indexes
from tests.helpers import GIT_IDENTITY, FakeEmbedder
from tests.machines import hook_env

MEMIDX = Path(sys.executable).parent / "memidx"
HAYSTACK = "notes/haystack/"


def bench_env(scratch: Path, **extra: str) -> dict[str, str]:
    """hook_env with real commit times (growth per minute is measured from them)."""
    env = hook_env(scratch / "pre-commit-home", **extra)
    for key in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        env.pop(key, None)
    return env


@dataclass(frozen=True, slots=True)
class Done:
    """One finished process: exit status, output and wall time."""

    code: int
    out: str
    err: str
    seconds: float

    def error(self) -> str:
        """The line that says what went wrong (memidx's error line, else the last line)."""
        lines = [line for line in self.err.splitlines() if line.strip()]
        named = [line for line in lines if line.startswith("memidx: error:")]
        return (named or lines or [f"exit {self.code}"])[-1].strip()

    def last_json(self) -> dict[str, Any] | None:
        """The JSON object memidx printed: all of stdout, or its last line (git may print
        before it)."""
        lines = self.out.splitlines()
        for text in (self.out, lines[-1] if lines else ""):
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return cast("dict[str, Any]", value)
        return None


def status_problem(report: Mapping[str, Any] | None) -> str | None:
    """The index problem a `memidx status --json` report names (None when it names none)."""
    if report is None:
        return "status printed no JSON"
    index: dict[str, Any] = report.get("index") or {}
    problem = index.get("problem")
    return None if problem is None else str(problem)


def status_reasons(status: Done) -> str:
    """Why `memidx status --json` exited 1, in a few words."""
    report = status.last_json() or {}
    reasons = [
        f"{key}={report[key]!r}"[:120]
        for key in ("drift", "segments_changed", "segments_vanished", "hook_failure", "behind_head")
        if report.get(key)
    ]
    if problem := status_problem(report):
        reasons.insert(0, f"problem={problem!r}")
    return ", ".join(reasons) or status.error()


def memidx(
    root: Path, env: Mapping[str, str], *args: str, stdin: str | None = None, timeout: float = 600
) -> Done:
    """The real memidx executable in `root`, as an agent runs it."""
    env = {"MEMIDX_ROOT": str(root), **env}  # the clone it stands in, indexed or not yet
    return run([str(MEMIDX), *args], root, env, stdin=stdin, timeout=timeout)


def git(root: Path, env: Mapping[str, str], *args: str) -> Done:
    return run(["git", *GIT_IDENTITY, *args], root, env)


def run(
    argv: Sequence[str],
    root: Path,
    env: Mapping[str, str],
    *,
    stdin: str | None = None,
    timeout: float = 600,
) -> Done:
    start = time.perf_counter()
    try:
        done = subprocess.run(
            list(argv),
            cwd=root,
            env=dict(env),
            input=stdin,
            capture_output=True,
            text=True,
            check=False,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else ""
        return Done(-1, "", err + f"\ntimed out after {timeout:.0f} s", time.perf_counter() - start)
    return Done(done.returncode, done.stdout, done.stderr, time.perf_counter() - start)


def indexed(index: Path) -> tuple[set[str], set[str]]:
    """(record ids, note refs) the index holds, read-only: no lock, no rebuild, no repair.
    Raises sqlite3.DatabaseError when the file is not a readable index."""
    with closing(sqlite3.connect(f"file:{index}?mode=ro", uri=True)) as conn:
        rows = conn.execute("SELECT source_kind, source_ref, meta FROM documents").fetchall()
    ids = {str(json.loads(meta).get("id")) for kind, _, meta in rows if kind != "note"}
    return ids, {str(ref) for kind, ref, _ in rows if kind == "note"}


@dataclass(frozen=True, slots=True)
class Tree:
    """What one commit holds: record ids, note refs, and the segments of each writer folder;
    `twice`: the ids its segments hold more than once (a record filed or merged twice)."""

    records: set[str]
    notes: set[str]
    segments: dict[str, int]  # writer folder -> segments
    segment_bytes: dict[str, int]  # writer folder -> bytes of its segments
    twice: set[str]


def tree(git_dir: Path, env: Mapping[str, str], rev: str = "main") -> Tree:
    """The notes and the records in the segments of `rev` (read from git objects)."""
    listing = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", rev],
        env=dict(env),
        capture_output=True,
        check=True,
    ).stdout.decode()
    notes: set[str] = set()
    blobs: dict[str, str] = {}
    for entry in filter(None, listing.split("\0")):
        meta, path = entry.split("\t", 1)
        if path.startswith(HAYSTACK) and path.endswith(".krd"):
            blobs[path] = meta.split()[2]
        elif path.startswith("notes/") and path.endswith(".md"):
            notes.add(path)
    records: set[str] = set()
    twice: set[str] = set()
    segments: dict[str, int] = {}
    sizes: dict[str, int] = {}
    for path, data in zip(blobs, _blobs(git_dir, env, blobs.values()), strict=True):
        folder = path.removeprefix(HAYSTACK).split("/", 1)[0]
        segments[folder] = segments.get(folder, 0) + 1
        sizes[folder] = sizes.get(folder, 0) + len(data)
        for located in scan_bytes(data).records:
            (twice if located.record.id in records else records).add(located.record.id)
    return Tree(records, notes, segments, sizes, twice)


def _blobs(git_dir: Path, env: Mapping[str, str], shas: Iterable[str]) -> list[bytes]:
    request = "".join(f"{sha}\n" for sha in shas).encode()
    raw = subprocess.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
        env=dict(env),
        input=request,
        capture_output=True,
        check=True,
    ).stdout
    found: list[bytes] = []
    at = 0
    while at < len(raw):
        newline = raw.index(b"\n", at)
        size = int(raw[at:newline].split()[2])
        found.append(raw[newline + 1 : newline + 1 + size])
        at = newline + 1 + size + 1
    return found


def against_rebuild(
    root: Path, env: Mapping[str, str], scratch: Path, words: Sequence[str]
) -> list[str]:
    """Every way the clone's index differs from `memidx ingest` into a new index file (both
    compared as tests/gitops/compare.py compares them, on copies: the clone is left alone)."""
    scratch.mkdir(parents=True, exist_ok=True)
    fresh, ours = scratch / f"{root.name}-fresh.sqlite", scratch / f"{root.name}-ours.sqlite"
    done = memidx(root, {**env, "MEMIDX_INDEX": str(fresh)}, "ingest")
    if done.code != 0:
        return [f"fresh ingest failed: {done.error()}"]
    with (
        closing(
            sqlite3.connect(f"file:{root / '.memidx' / 'index.sqlite'}?mode=ro", uri=True)
        ) as a,
        closing(sqlite3.connect(ours)) as b,
    ):
        a.backup(b)
    # writers: the comparison embeds into both copies (a reader's index is read-only)
    mine, _ = open_store(ours, write=True)
    theirs, _ = open_store(fresh, write=True)
    try:
        found = compare_indexes(mine, theirs, FakeEmbedder(), words)
        indexed_commit = mine.get_state("indexed_commit")
    finally:
        mine.conn.close()
        theirs.conn.close()
        for path in scratch.glob(f"{root.name}-*.sqlite*"):
            path.unlink() if path.is_file() else shutil.rmtree(path, ignore_errors=True)
    head = git(root, env, "rev-parse", "HEAD").out.strip()
    if indexed_commit != head:
        found.append(("indexed commit", f"the index says {indexed_commit}, HEAD is {head}"))
    return [f"{what}: {detail[:200]}" for what, detail in found]
