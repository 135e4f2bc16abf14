"""`memidx haystack purge`: the bytes of forgotten records leave this clone's segments.

A forgotten record's frame is overwritten in place by a frame of the same length that keeps
only its id, kind, drawer and time, with blank text, so every other record keeps its offset
(its ref) and nothing else changes. Segments no commit holds are rewritten in the work tree;
a segment committed but reachable from no remote-tracking branch is rewritten in HEAD's local
commits too (memidx.git.rewrite), and the work tree's files change only once HEAD has moved
(a rewrite that cannot move HEAD leaves every file as it was, for the next purge to find); a
segment already pushed is left as it is and named: its bytes are in the remote's history,
which only a history rewrite there removes (README). The clone's other places (branches,
tags, stash entries, other refs, other work trees' HEADs) are never moved unasked: each whose
unpushed commits still hold a forgotten frame is named with the command that clears it, and
the branches the person names are rewritten as HEAD's are (memidx.haystack.held)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from shlex import quote

from memidx.config import Config
from memidx.errors import MemidxError, UsageError
from memidx.git.tips import HEADS, Tip
from memidx.hashes import content_hash
from memidx.haystack.frames import HEADER, MAGIC, Located, scan_bytes
from memidx.haystack.held import Held
from memidx.haystack.indexing import haystack_folder, segment_ref
from memidx.haystack.segments import segments
from memidx.paths import refuse_links


@dataclass(slots=True)
class Purged:
    """What purge did: records blanked per segment, the commits and branches it rebuilt, the
    segments it could not rewrite (pushed), and the places that still hold forgotten bytes."""

    blanked: dict[str, int] = field(default_factory=dict[str, int])
    rewritten_commits: int = 0
    pushed: list[str] = field(default_factory=list[str])
    blobs: dict[str, tuple[str, str]] = field(default_factory=dict[str, tuple[str, str]])
    rewritten_refs: dict[str, int] = field(default_factory=dict[str, int])
    held: list[Held] = field(default_factory=list[Held])


def blank_frame(located: Located) -> bytes:
    """A frame of exactly the forgotten record's length: its id, kind, drawer and time, and
    spaces for text (with their hash, so the record reads as intact)."""
    record = located.record
    size = located.length - HEADER.size

    def payload(text: str) -> bytes:
        data: dict[str, object] = {
            "id": record.id, "kind": record.kind, "drawer": record.drawer, "ts": record.ts,
            "tags": [], "text": text, "hash": content_hash(text),
        }  # fmt: skip
        return json.dumps(data, ensure_ascii=False, sort_keys=True).encode("utf-8")

    spare = size - len(payload(""))  # spaces are one byte each, never escaped
    if spare < 0:
        raise ValueError(f"record {record.id} is too short to blank in place")
    return HEADER.pack(MAGIC, size) + payload(" " * spare)


def blanked(data: bytes, forgotten: set[str]) -> tuple[bytes, int]:
    """The segment's bytes with every forgotten record blanked; and how many were."""
    out = bytearray(data)
    count = 0
    for located in scan_bytes(data).records:
        record = located.record
        if record.id in forgotten and record.text.strip():
            out[located.offset : located.offset + located.length] = blank_frame(located)
            count += 1
    return bytes(out), count


def purge(config: Config, *, pushed: bool = False, branches: Sequence[str] = ()) -> Purged:
    """Blank the forgotten records in this clone's segments and in HEAD's unpushed commits,
    and in those of the local `branches` named; name every other place that still holds them
    (see the module's docstring). `pushed`: for each pushed segment, store its blanked bytes
    as a git blob and name the pair (old blob, new blob) for the history rewrite the README
    gives. UsageError or MemidxError for a branch that cannot be named, before any change."""
    from memidx.git.rewrite import rewrite_branch, rewrite_unpushed
    from memidx.haystack.clone_writer import clone_writer
    from memidx.haystack.held import History, in_order
    from memidx.index.store import RecordStore, open_store

    store, _ = open_store(config.index_path, write=False)
    try:
        forgotten = RecordStore(store.conn).forgotten_ids()
    finally:
        store.conn.close()
    done = Purged()
    if not forgotten:
        return done
    writer = clone_writer(config)
    with writer.locked():
        files = _work_tree(config, forgotten, done, pushed)

        def replace_files() -> None:
            for path, new in files.items():
                _replace(path, new)

        if not config.in_git:
            replace_files()
            return done
        history = History(config, lambda data: _blanked_or_none(data, forgotten))
        named = _named(history.tips, branches)
        holding = history.holding()
        if files or any(tip.name == "HEAD" for tip in holding):  # the files follow HEAD
            paths = [segment_ref(config, path) for path in files]
            done.rewritten_commits = rewrite_unpushed(
                config, history.folder, history.replace, paths, replace_files
            )
        for tip in named:
            count = rewrite_branch(config, tip.name, tip.commit, history.folder, history.replace)
            if count is not None:
                done.rewritten_refs[tip.name] = count
        history.scan()
        done.held = in_order(history.holding())
    return done


def _work_tree(
    config: Config, forgotten: set[str], done: Purged, pushed: bool
) -> dict[Path, bytes]:
    """The blanked bytes of each segment file in the work tree (every writer's) that holds a
    forgotten record and is not pushed; the pushed ones go to `done.pushed`."""
    from memidx.git.rewrite import pushed_paths

    files: dict[Path, bytes] = {}
    for path in segments(haystack_folder(config)):
        ref = segment_ref(config, path)
        try:
            refuse_links(config.root, Path(ref).parent)
        except MemidxError:
            continue  # memidx never writes through a link
        new, count = blanked(path.read_bytes(), forgotten)
        if not count:
            continue
        if config.in_git and ref in pushed_paths(config.root, [ref]):
            done.pushed.append(ref)
            if pushed:
                done.blobs[ref] = (_blob(config, ref), _blob(config, ref, new))
            continue
        files[path] = new
        done.blanked[ref] = count
    return files


def _named(tips: Sequence[Tip], branches: Sequence[str]) -> list[Tip]:
    """The tips of the local branches named, none checked out in another work tree (the one
    HEAD is on is rewritten as HEAD)."""
    named: list[Tip] = []
    for branch in branches:
        ref = branch if branch.startswith(HEADS) else f"{HEADS}{branch}"
        tip = next((t for t in tips if t.name == ref), None)
        if tip is None:
            raise UsageError(f"no local branch {branch}", "`git branch` lists them")
        if tip.here:
            continue
        if tip.checked_out:
            raise MemidxError(
                f"{ref} is checked out in {tip.checked_out}: memidx never moves a branch a "
                "work tree has checked out; nothing was purged",
                f"git worktree remove {quote(tip.checked_out)}, then purge again",
            )
        named.append(tip)
    return named


def _blanked_or_none(data: bytes, forgotten: set[str]) -> bytes | None:
    """The segment's bytes with the forgotten records blanked, None when it holds none (a
    segment that names no forgotten id is not even scanned)."""
    if not any(ident.encode() in data for ident in forgotten):
        return None
    new, count = blanked(data, forgotten)
    return new if count else None


def _blob(config: Config, ref: str, data: bytes | None = None) -> str:
    """The id of the segment's blob at HEAD, or of `data` stored as a new blob."""
    from memidx.git.repo import GitRepo

    repo = GitRepo(config.root)
    if data is None:
        return repo.run("rev-parse", f"HEAD:{ref}").decode().strip()
    return repo.run("hash-object", "-w", "--stdin", input_bytes=data).decode().strip()


def _replace(path: Path, data: bytes) -> None:
    """Write the segment's new bytes through a temporary file renamed over it."""
    temporary = path.with_name(f".{path.name}.purge")
    with temporary.open("wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    temporary.replace(path)
