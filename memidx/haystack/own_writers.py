"""The writer ids this clone wrote as, kept where a lost `.memidx/` cannot take them: a line
each in `<common git folder>/memidx-writers`, with the device and inode of that folder.

A lost `.memidx/` gives the clone a fresh writer id, so "not this clone's id" cannot tell a
peer's segments from the clone's own older ones. `memidx haystack purge` must: it rebuilds
the unpushed commits that hold its own segments, but a peer's segment pulled straight from
the peer (`git pull ../peer`) is in the peer's commits too, and rebuilding them here would
make the next pull conflict. Every work tree of the clone shares the folder, so their ids
count as the clone's; a copied clone (`cp -a`) has a copy of the file but a new folder, so the
original's lines are not its own (it writes as a fresh id: memidx.haystack.identity)."""

from __future__ import annotations

import os
from pathlib import Path

from memidx.config import Config
from memidx.portable import sync_folder

RECORD = "memidx-writers"


def record_own(config: Config, ident: str) -> None:
    """Add `ident` to the clone's own writer ids (no-op outside git, or when it is there)."""
    place = _place(config)
    if place is None:
        return
    record, binding = place
    if ident in _own(record, binding):
        return
    made = not record.exists()
    with record.open("a", encoding="utf-8") as out:  # one short line: appended whole
        out.write(f"{ident} {binding}\n")
        out.flush()
        if config.fsync:
            os.fsync(out.fileno())
    if made and config.fsync:
        sync_folder(record.parent)


def own_writers(config: Config) -> set[str]:
    """The writer ids this clone (any of its work trees) wrote as: those recorded in its git
    folder, and each work tree's current one, read from the state folder when it is there."""
    found = recorded_writers(config)
    try:
        current = (config.state_dir / "writer-id").read_text(encoding="utf-8").strip()
    except OSError:
        current = ""
    return found | {current} if current else found


def recorded_writers(config: Config) -> set[str]:
    """The writer ids recorded as this clone's in its git folder (none outside git)."""
    place = _place(config)
    return set() if place is None else _own(*place)


def _place(config: Config) -> tuple[Path, str] | None:
    """The record's path and the binding its lines must carry to be this clone's."""
    from memidx.git.refs import common_dir

    if not config.in_git:
        return None
    common = common_dir(config.root)
    if common is None:
        return None
    found = common.stat()
    return common / RECORD, f"{found.st_dev} {found.st_ino}"


def _own(record: Path, binding: str) -> set[str]:
    try:
        text = record.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return set()
    lines = (line.split(" ", 1) for line in text.splitlines())
    return {parts[0] for parts in lines if len(parts) == 2 and parts[1].strip() == binding}
