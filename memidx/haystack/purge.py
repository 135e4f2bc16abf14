"""`memidx haystack purge`: the bytes of forgotten records leave this clone's segments.

A forgotten record's frame is overwritten in place by a frame of the same length that keeps
only its id, kind, drawer and time, with blank text, so every other record keeps its offset
(its ref) and nothing else changes. Segments no commit holds are rewritten in the work tree;
a segment committed but reachable from no remote-tracking branch is rewritten in those local
commits too (memidx.git.rewrite), and the work tree's files change only once HEAD has moved
(a rewrite that cannot move HEAD leaves every file as it was, for the next purge to find); a
segment already pushed is left as it is and named: its bytes are in the remote's history,
which only a history rewrite there removes (README)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from memidx.config import Config
from memidx.hashes import content_hash
from memidx.haystack.frames import HEADER, MAGIC, Located, scan_bytes
from memidx.haystack.indexing import segment_ref


@dataclass(slots=True)
class Purged:
    """What purge did: records blanked per segment, and the segments it could not rewrite."""

    blanked: dict[str, int] = field(default_factory=dict[str, int])
    rewritten_commits: int = 0
    pushed: list[str] = field(default_factory=list[str])
    blobs: dict[str, tuple[str, str]] = field(default_factory=dict[str, tuple[str, str]])


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


def purge(config: Config, *, pushed: bool = False) -> Purged:
    """Blank the forgotten records in this clone's segments (see the module's docstring);
    `pushed`: for each pushed segment, store its blanked bytes as a git blob and name the pair
    (old blob, new blob) for the history rewrite the README gives; nothing else changes."""
    from memidx.git.rewrite import pushed_paths, rewrite_unpushed
    from memidx.haystack.clone_writer import clone_writer
    from memidx.index.store import RecordStore, open_store

    store, _ = open_store(config.index_path, write=False)
    try:
        forgotten = RecordStore(store.conn).forgotten_ids()
    finally:
        store.conn.close()
    done = Purged()
    writer = clone_writer(config)
    replaced: dict[str, bytes] = {}  # by ref, for git
    files: dict[Path, bytes] = {}
    with writer.locked():
        for path in sorted(writer.folder.glob("*.krd")):
            ref = segment_ref(config, path)
            data = path.read_bytes()
            new, count = blanked(data, forgotten)
            if not count:
                continue
            if config.in_git and ref in pushed_paths(config.root, [ref]):
                done.pushed.append(ref)
                if pushed:
                    done.blobs[ref] = (_blob(config, ref), _blob(config, ref, new))
                continue
            replaced[ref] = new
            files[path] = new
            done.blanked[ref] = count

        def replace_files() -> None:
            for path, new in files.items():
                _replace(path, new)

        if replaced and config.in_git:  # the files change once HEAD has (or not at all)
            done.rewritten_commits = rewrite_unpushed(config, replaced, replace_files)
        else:
            replace_files()
    return done


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
