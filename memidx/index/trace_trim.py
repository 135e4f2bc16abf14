"""A hook's trace kept bounded (memidx.index.failures): past MAX_TRACE, a line first keeps
the trace's newest half, copied whole into a new file that replaces it."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path
from stat import S_IMODE, S_ISREG

from memidx.portable import NO_FIFO_WAIT, NO_FOLLOW, give_back

# bytes a trace may reach: a line that would take it past keeps only its newest half (trimmed)
MAX_TRACE = 1024 * 1024
# seconds since a draft was last written past which it is no live trim's: a trim writes its
# draft (half of MAX_TRACE at most) in milliseconds, holding the trace's lock throughout
LEFT_AGE = 600.0


def trimmed(fd: int, path: Path, adding: int) -> bool:
    """Put the newest lines of the trace `path`, open as `fd` with its lock held, in its place,
    about half of MAX_TRACE, when `adding` bytes would take it past MAX_TRACE (a hook traced all
    day grew it for good); whether it was. The lines go whole into a new file that replaces it:
    one reading it (`memidx status`) reads the old file or the new, never half of either; one
    that cannot be written (a full disk) leaves the trace as it was. A draft a trim killed
    midway left goes first, trim or not (drop_draft)."""
    if sys.platform == "win32":  # its writers take no turns, and an open file is not replaced
        return False
    drop_draft(path)
    try:
        found = os.fstat(fd)
        if found.st_size + adding <= MAX_TRACE:
            return False
        start = max(0, found.st_size - MAX_TRACE // 2)
        read = os.open(path, os.O_RDONLY | NO_FIFO_WAIT | NO_FOLLOW)
        try:
            if not still_at(read, path) or not still_at(fd, path):
                return False
            os.lseek(read, start, os.SEEK_SET)
            kept = _read_all(read, found.st_size - start)
        finally:
            os.close(read)
    except OSError:
        return False
    if start:
        kept = kept.partition(b"\n")[2]  # the first line, cut
    return _replaced(path, kept, found)


def _read_all(fd: int, size: int) -> bytes:
    chunks: list[bytes] = []
    while size > 0 and (chunk := os.read(fd, size)):
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _replaced(path: Path, data: bytes, found: os.stat_result) -> bool:
    """Replace `path` by a new file holding `data`, with the mode and owner `found` says;
    whether it was. Its draft (`.<trace>.trim`, one at a time: its maker holds the trace's
    lock) goes when it cannot be written whole; one a killed trimmer left is made anew."""
    part = draft_of(path)
    try:
        part.unlink(missing_ok=True)
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NO_FOLLOW, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fchmod(fd, S_IMODE(found.st_mode))
        finally:
            os.close(fd)
        give_back(part, found)  # root tracing in another user's memory leaves it theirs
        os.replace(part, path)  # noqa: PTH105
    except OSError:
        with contextlib.suppress(OSError):
            part.unlink()
        return False
    return True


def still_at(fd: int, path: Path) -> bool:
    """Whether `path` still names the file open as `fd`."""
    try:
        here, there = os.fstat(fd), path.lstat()  # a link put there since names another file
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def draft_of(path: Path) -> Path:
    """Where a trim of the trace `path` writes the file that replaces it: `.<trace>.trim`."""
    return path.with_name(f".{path.name}.trim")


def drop_draft(path: Path) -> None:
    """Remove the draft a trim of the trace `path` killed midway left (up to half of MAX_TRACE,
    kept for good where no trim came again), the trace's lock held: each trimmer holds it from
    before its draft is made until the draft replaces the trace, so one found under it is no
    live trimmer's."""
    with contextlib.suppress(OSError):  # a folder there (never made by memidx) stays
        draft_of(path).unlink(missing_ok=True)


def drop_left_draft(path: Path) -> None:
    """Remove the draft a trim of the trace `path` killed midway left when that trace is gone:
    drop_draft comes only with the trace's next line, which may never come (the trace removed
    by a sync that could not lock it, or by hand), and it stayed for good. Only memidx's own:
    a file of its draft's name, owned as its folder is, not written for LEFT_AGE seconds (no
    live trim's, which would have its trace); never a link, a folder, or another's file."""
    draft = draft_of(path)
    try:
        if os.path.lexists(path):  # its next line's drop_draft takes it, under the lock
            return
        found = draft.lstat()  # a trim gives its draft the trace's owner: its folder's
        if not S_ISREG(found.st_mode) or found.st_uid != path.parent.stat().st_uid:
            return
        if time.time() - found.st_mtime < LEFT_AGE:
            return
        again = draft.lstat()  # the same file still: never one a trim made since
        if (again.st_ino, again.st_mtime_ns) == (found.st_ino, found.st_mtime_ns):
            draft.unlink()
    except OSError:
        return
