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
from memidx.drafts import read_own
from memidx.errors import MemidxError
from memidx.portable import NO_FIFO_WAIT, NO_FOLLOW, sync_folder

RECORD = "memidx-writers"
MAX_RECORD = 16 << 20  # bytes: a short line for each writer id the clone has had


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
        # a FIFO there fails to open rather than wait for a reader for ever, a link is not followed
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | NO_FIFO_WAIT | NO_FOLLOW
        with os.fdopen(os.open(record, flags, 0o666), "ab") as out:  # one short line: whole
            # after a line a crash tore (no newline): never glued to it, which would hide it
            torn = os.fstat(out.fileno()).st_size > 0 and not _ends_a_line(record)
            out.write((("\n" if torn else "") + f"{ident}\n").encode())
            out.flush()
            if config.fsync:
                os.fsync(out.fileno())
        if made and config.fsync:
            sync_folder(record.parent)
    except OSError as failed:
        return f"{record}: {failed.strerror or failed}"
    return None


def _ends_a_line(record: Path) -> bool:
    """Whether `record`, read as it is, ends with a newline."""
    data = read_own(record, MAX_RECORD)  # unread: a newline first, which no reader minds
    return data is not None and data.endswith(b"\n")


def disown(config: Config, ident: str) -> None:
    """Keep as the clone's own only the segments of `ident` HEAD holds now: another clone
    writes on as it (the original of a copy), and what it files later is a peer's. The line
    becomes `<id> <last segment held>` (none held: the line goes). A line another work tree
    appends meanwhile may be lost: its segments then count as a peer's, blanked on top and
    never rebuilt, which loses nothing."""
    from memidx.drafts import replace_durably

    record = _record(config)
    lines = {} if record is None else _lines(record)
    if record is None or ident not in lines or lines[ident] is not None:
        return
    try:
        lines[ident] = _last_held(config, ident)
    except (OSError, ValueError, MemidxError):  # kept whole, as before
        return
    kept = "".join(
        f"{one} {upto}\n" if upto else f"{one}\n"
        for one, upto in sorted(lines.items())
        if upto or one != ident
    )
    with contextlib.suppress(OSError):  # kept whole: the original's later segments are rebuilt
        replace_durably(record, kept.encode("utf-8"), "partial", durable=config.fsync)


def shared_until(config: Config) -> dict[str, str]:
    """The own ids another clone writes on as (disown), each with the last segment of it
    this clone shares: a later one is that clone's."""
    record = _record(config)
    found = {} if record is None else _lines(record)
    return {ident: upto for ident, upto in found.items() if upto}


def _last_held(config: Config, ident: str) -> str | None:
    """The name of the last segment of `ident`'s folder that HEAD holds (None: none)."""
    from memidx.git.repo import GitRepo
    from memidx.haystack.writer import segment_order

    folder = (config.notes_path / "haystack" / ident).relative_to(config.root).as_posix()
    out = GitRepo(config.root).run("ls-tree", "-z", "--name-only", "HEAD", "--", f"{folder}/",
                                   check=False)  # fmt: skip
    names = [Path(n).name for n in out.decode("utf-8", "replace").split("\0") if n]
    return max(names, key=lambda n: segment_order(Path(n)), default=None)


def own_writers(config: Config) -> set[str]:
    """The writer ids this clone (any of its work trees) wrote as: those recorded in its git
    folder, and the work tree's current one, read from the state folder when it is there."""
    found = recorded_writers(config)
    data = read_own(config.state_dir / "writer-id", 4096)  # as it is: no FIFO waited on
    current = "" if data is None else data.decode("utf-8", "replace").strip()
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
    return set(_lines(record))


def _lines(record: Path) -> dict[str, str | None]:
    """Each id recorded, and the last segment of it shared with its original (disown)."""
    data = read_own(record, MAX_RECORD)  # as it is: a FIFO there hung every filing and purge
    if data is None:  # none yet, or unreadable: no id counts as the clone's own but its current
        return {}
    text = data.decode("utf-8", "replace")
    words = [line.split() for line in text.splitlines()]
    return {w[0]: (w[1] if len(w) > 1 else None) for w in words if w}
