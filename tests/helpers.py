"""Test helpers: real git repositories of notes and the real memidx CLI."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memidx.cli.main import main
from memidx.index.store import Store, VectorStore
from memidx.index.sync import note_document
from memidx.notes.chunks import chunk_document
from memidx.notes.note import Note, parse_note

if TYPE_CHECKING:
    import pytest

GIT_IDENTITY = ("-c", "user.name=memidx tests", "-c", "user.email=tests@memidx.invalid")
MEMIDX_BIN = Path(sys.executable).parent / "memidx"


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without inherited GIT_*, MEMIDX_* and PRE_COMMIT_* variables (pre-commit's
    no_git_env; the hook shim reads the stage from pre-commit's variables)."""
    inherited = ("GIT_", "MEMIDX_", "PRE_COMMIT_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(inherited)}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
        GIT_COMMITTER_DATE="2026-01-01T00:00:00Z",
        HF_HUB_OFFLINE="1",
        MEMIDX_MCP_IDLE="20",  # a shared MCP server a test started does not outlive it long
    )
    env.update(extra)
    return env


@dataclass(frozen=True, slots=True)
class Run:
    """The result of one memidx run."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        """The parsed JSON output (any shape: tests index into it freely)."""
        return json.loads(self.out)


class NotesRepo:
    """A real git repository with a notes/ folder, driven by real git."""

    def __init__(self, root: Path, *, init: bool = True) -> None:
        self.root = root
        (root / "notes").mkdir(parents=True, exist_ok=True)
        if init:
            self.git("init", "-q", "-b", "main")

    def git(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(
            ["git", *GIT_IDENTITY, *args],
            cwd=self.root,
            env=clean_env(),
            capture_output=True,
            text=True,
            check=False,
        )
        if check and done.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
        return done.stdout

    def write(self, ref: str, text: str | bytes) -> Path:
        path = self.root / ref
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    def note(self, name: str, title: str, body: str, tags: Sequence[str] = ()) -> str:
        """Write notes/<name> with front matter; returns its ref."""
        front = (
            f"---\ntitle: {json.dumps(title)}\n"
            + (f"tags: [{', '.join(tags)}]\n" if tags else "")
            + "---\n"
        )
        ref = f"notes/{name}"
        self.write(ref, front + f"\n{body}\n")
        return ref

    def commit(self, message: str = "notes") -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--no-verify", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def memidx(self, *args: str, stdin: str | None = None) -> Run:
        """Run memidx in-process (fast) with this repository as the root (and `stdin`, if
        given, as its standard input)."""
        return run_in_process(self.root, *args, stdin=stdin)

    def memidx_process(self, *args: str, stdin: str | None = None, **env: str) -> Run:
        """Run the installed `memidx` executable as a new process in this repository, named
        by MEMIDX_ROOT: a new repository is no memidx memory until indexed, so standing in it
        is not enough (how memidx finds its memory is tested in test_memory_anywhere.py)."""
        done = subprocess.run(
            [str(MEMIDX_BIN), *args],
            cwd=self.root,
            env=clean_env(**{"MEMIDX_ROOT": str(self.root), **env}),
            input=stdin,
            capture_output=True,
            text=True,
            check=False,
        )
        return Run(done.returncode, done.stdout, done.stderr)

    def memidx_killed_as_head_moves(self, *args: str) -> None:
        """Run `memidx ARGS` as a process and `kill -9` it the moment HEAD has moved, before
        the git that moved it answers: the clone's reference-transaction hook (once) kills it
        then. Returns once it is dead; what that git runs after the move may still be at work."""
        pid_file, killed = self.root / ".git" / "memidx-test.pid", self.root / ".git" / "killed"
        hook = self.root / ".git" / "hooks" / "reference-transaction"
        hook.write_text(
            "#!/bin/sh\n"
            '[ "$1" = committed ] && grep -q " HEAD$" || exit 0\n'
            f"[ -e {killed} ] && exit 0\n"
            f"i=0; while [ ! -s {pid_file} ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done\n"
            f"touch {killed}; kill -9 $(cat {pid_file})\n"
        )
        hook.chmod(0o755)
        run = subprocess.Popen(
            [str(MEMIDX_BIN), *args],
            cwd=self.root,
            env=clean_env(MEMIDX_ROOT=str(self.root)),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        pid_file.write_text(str(run.pid))
        assert run.wait(timeout=60) == -signal.SIGKILL


def started_memory(tmp_path: Path) -> NotesRepo:
    """A memory with one committed note, `.memidx/` ignored, indexed: where the pending-note
    tests begin."""
    repo = NotesRepo(tmp_path / "memory")
    repo.write(".gitignore", ".memidx/\n")
    repo.write("notes/start.md", "# Start\n\nThe first note of this memory, in English words.\n")
    repo.commit("start")
    assert repo.memidx("ingest").code == 0
    return repo


def run_in_process(root: Path, *args: str, stdin: str | None = None) -> Run:
    """Call memidx's main() with `root` as the working directory (-C), reading `stdin` (when
    given) as its standard input: a set-up's `file-turn` without a process's ~0.2 s of CPU."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["-C", str(root), *args])
    finally:
        sys.stdin = saved
    return Run(code, out.getvalue(), err.getvalue())


def venv_for_make(folder: Path) -> Path:
    """This suite's virtualenv as `make VENV=folder` can name it whatever this clone's path
    holds (make splits a space, expands a `$`, reads a `%` as a pattern): its pyvenv.cfg, a
    link to its lib/ and its python, and bin/memidx naming that python. Made once per folder."""
    memidx = folder / "bin" / "memidx"
    if memidx.exists():
        return folder
    (folder / "bin").mkdir(parents=True)
    shutil.copy(Path(sys.prefix) / "pyvenv.cfg", folder / "pyvenv.cfg")
    (folder / "lib").symlink_to(Path(sys.prefix) / "lib")
    (folder / "bin" / "python").symlink_to(sys.executable)
    memidx.write_text(
        f"#!{folder / 'bin' / 'python'}\nimport sys\n"
        "from memidx.cli.main import main\nsys.exit(main())\n"
    )
    memidx.chmod(0o755)
    return folder


def memidx_agent(root: Path, *args: str) -> str:
    """`memidx agent ARGS` in-process with `root` as the working directory; its output (the
    command must succeed)."""
    done = run_in_process(root, "agent", *args)
    assert done.code == 0, done.err
    return done.out


def clone_at(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clone's `.venv/bin/memidx` under `folder` (an empty script), which this process's
    memidx now is: what a user install names."""
    script = folder / ".venv" / "bin" / "memidx"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(script.parent / "python"))
    return script


def copy_tree(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst, dirs_exist_ok=True)


def add_note(store: Store, ref: str, text: str) -> int:
    """The note at `ref` with body `text` indexed in `store`, its chunks waiting for vectors;
    its document id."""
    return _indexed(store, parse_note(ref, text.encode(), 1 << 20))


def add_older_note(store: Store, ref: str, text: str) -> int:
    """add_note as memidx indexed a note before note reader 9: its `<private>` spans in its
    rows, as an index not yet read again holds them (what output masking still hides)."""
    from memidx.frozen import replace
    from memidx.notes.note import first_heading, split_front_matter

    note = parse_note(ref, text.encode(), 1 << 20)
    fields, body, _ = split_front_matter(text)
    return _indexed(
        store, replace(note, title=fields.title or first_heading(body) or note.title, body=body)
    )


def _indexed(store: Store, note: Note) -> int:
    ref = note.ref
    doc = note_document(note, f"blob-{ref}")
    doc_id, _ = store.upsert(doc)
    VectorStore(store.conn).replace_chunks(
        doc_id, chunk_document(doc.title, doc.body, doc.body_line)
    )
    return doc_id


class FakeEmbedder:
    """A deterministic bag-of-words embedder for unit tests (no model, no numpy tricks):
    each word hashes to one of `dim` buckets; vectors are unit length."""

    def __init__(self, name: str = "test/fake", dim: int = 64) -> None:
        self.name = name
        self.dim = dim
        self.fingerprint = f"fake-{dim}"
        self.calls: list[list[str]] = []

    def bucket(self, word: str) -> int:
        """The dimension a word counts in (what makes two words alike to this embedder)."""
        import hashlib

        digest = hashlib.md5(word.strip(".,:;!?`'\"()").encode(), usedforsecurity=False)
        return digest.digest()[0] % self.dim

    def _vector(self, text: str) -> Any:
        import numpy as np

        vector = np.zeros(self.dim, dtype=np.float32)
        for word in text.lower().split():
            vector[self.bucket(word)] += 1.0
        norm = float(np.linalg.norm(vector)) or 1.0
        return vector / norm

    def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np

        self.calls.append(list(texts))
        return np.asarray([self._vector(t) for t in texts], dtype=np.float32).reshape(-1, self.dim)

    def embed_query(self, text: str) -> Any:
        return self._vector(text)


def pipe_reads(monkeypatch: Any) -> list[int]:
    """Sizes of the reads memidx makes from child processes' pipes (git's output), recorded
    as they happen: what memidx received, whether or not the run then failed."""
    import memidx.git.process

    sizes: list[int] = []
    read = os.read

    def counting(fd: int, n: int) -> bytes:
        data = read(fd, n)
        sizes.append(len(data))
        return data

    monkeypatch.setattr(memidx.git.process.os, "read", counting)
    return sizes


def dead_pid() -> int:
    """The pid of a process that has ended (and been reaped): a killed writer's."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def in_threads(work: Callable[[int], None], count: int) -> list[BaseException]:
    """Run work(0), ..., work(count - 1) in threads of this process started at once; what
    they raised."""
    import threading

    failures: list[BaseException] = []
    start = threading.Barrier(count)

    def run(n: int) -> None:
        start.wait()
        try:
            work(n)
        except BaseException as exc:  # noqa: BLE001 - returned to the test, which asserts on it
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for one in threads:
        one.start()
    for one in threads:
        one.join()
    return failures
