"""The writer ids this clone wrote as, kept where a lost `.memidx/` cannot take them: a line
each in `<common git folder>/memidx-writers`, never committed, never fetched.

A lost `.memidx/` gives the clone a fresh writer id, so "not this clone's id" cannot tell a
peer's segments from the clone's own older ones. `memidx haystack purge` must: it rebuilds
the unpushed commits that hold its own segments, but a peer's segment pulled straight from
the peer (`git pull ../peer`) is in the peer's commits too, and rebuilding them here would
make the next pull conflict. Every work tree of the clone shares the folder, so their ids
count as the clone's. A copied clone (`cp -a`, a restored backup) brings the file along with
the history it describes, but the original it was copied from goes on writing as the id the
copy replaces (memidx.haystack.identity): that id is dropped from the copy's record, so the
segments the original files later, pulled by the copy, are a peer's there. A clone moved to
another file system (no original left) keeps it."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from memidx.config import Config
from memidx.portable import sync_folder

RECORD = "memidx-writers"


def record_own(config: Config, ident: str) -> str | None:
    """Add `ident` to the clone's own writer ids (no-op outside git, or when it is there).
    The record only tells purge whose segments are whose, so a file error never stops the
    caller (a filing): its text is returned, and the id's segments count as a peer's, which
    loses nothing (they are blanked all the same, never rebuilt)."""
    record = _record(config)
    if record is None or ident in _read(record):
        return None
    try:
        made = not record.exists()
        with record.open("ab") as out:  # one short line: appended whole
            # after a line a crash tore (no newline): never glued to it, which would hide it
            torn = out.tell() > 0 and not record.read_bytes().endswith(b"\n")
            out.write((("\n" if torn else "") + f"{ident}\n").encode())
            out.flush()
            if config.fsync:
                os.fsync(out.fileno())
        if made and config.fsync:
            sync_folder(record.parent)
    except OSError as failed:
        return f"{record}: {failed.strerror or failed}"
    return None


def disown(config: Config, ident: str) -> None:
    """Drop `ident` from the clone's own writer ids: another clone writes as it (the original
    of a copy). A line another work tree appends meanwhile may be lost with it: its segments
    then count as a peer's, blanked on top and never rebuilt, which loses nothing."""
    from memidx.drafts import replace_durably

    record = _record(config)
    if record is None or ident not in _read(record):
        return
    kept = "".join(f"{line}\n" for line in sorted(_read(record) - {ident}))
    with contextlib.suppress(OSError):  # kept: the original's later segments are rebuilt
        replace_durably(record, kept.encode("utf-8"), "partial", durable=config.fsync)


def own_writers(config: Config) -> set[str]:
    """The writer ids this clone (any of its work trees) wrote as: those recorded in its git
    folder, and the work tree's current one, read from the state folder when it is there."""
    found = recorded_writers(config)
    try:
        current = (config.state_dir / "writer-id").read_text(encoding="utf-8").strip()
    except OSError:
        current = ""
    return found | {current} if current else found


def recorded_writers(config: Config) -> set[str]:
    """The writer ids recorded as this clone's in its git folder (none outside git)."""
    record = _record(config)
    return set() if record is None else _read(record)


def _record(config: Config) -> Path | None:
    from memidx.git.refs import common_dir

    if not config.in_git:
        return None
    common = common_dir(config.root)
    return None if common is None else common / RECORD


def _read(record: Path) -> set[str]:
    try:
        text = record.read_text(encoding="utf-8", errors="replace")
    except OSError:  # none yet, or unreadable: no id counts as the clone's own but its current
        return set()
    return {line.strip() for line in text.splitlines() if line.strip()}
