"""Deleting a file only while it holds the bytes memidx judged (forget's note, share's twin at
its old name): read, then unlinked, an edit saved in between was deleted with it. The file is
moved aside first (one rename: a save at its path after it makes a new file, never touched),
compared there, and then deleted, or put back when it differs."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

from memidx.git.killed_edit import ASIDE


def read_once(path: Path, most: int) -> tuple[os.stat_result, bytes] | None:
    """A lock's stat and bytes, read once to be judged and then removed with unlink_judged (a
    check of its token again, then an unlink, removed a lock taken between); None when it is
    no regular file, holds more than `most` bytes (a git's index: never read) or cannot be
    read."""
    try:
        seen = path.stat()
        if not stat.S_ISREG(seen.st_mode) or seen.st_size > most:
            return None
        with path.open("rb") as file:
            return seen, file.read(most + 1)
    except OSError:
        return None


def unlink_judged(path: Path, judged: bytes, seen: os.stat_result | None = None) -> bool:
    """Delete the regular file at `path` when it holds exactly `judged` (and, `seen` given, is
    still the file seen so: a lock let go and taken anew holds the same token); True when it went.
    One that differs goes back to `path` (a hard link: never over a file saved there since,
    when it stays aside as `.<name>.memidx-<pid>`, which the next sync or status puts back or
    names once this process is gone). The name aside is one made for it (room_aside): renamed
    over `.<name>.memidx-<pid>` alone, an edit a killed memidx of the same pid left there, or
    this process earlier, was lost; with no name aside to be had (a name near the file
    system's limit of 255 bytes), the file is compared where it is, as before."""
    if path.is_symlink() or not path.is_file():
        return False
    aside = room_aside(path)
    if aside is None:  # ENAMETOOLONG: the note was never deleted, and said as edited
        return _unlink_in_place(path, judged, seen)
    try:
        path.rename(aside)  # over the empty file made for it: never over another
    except OSError:
        with contextlib.suppress(OSError):
            aside.unlink(missing_ok=True)
        return False
    try:
        same = not aside.is_symlink() and aside.read_bytes() == judged
        same = same and _still(aside.stat(), seen)
    except OSError:
        same = False
    if same:
        aside.unlink()
        return True
    _put_back(aside, path)
    return False


def _unlink_in_place(path: Path, judged: bytes, seen: os.stat_result | None) -> bool:
    """Delete `path` when it holds exactly `judged`, read right before its unlink."""
    try:
        if path.is_symlink() or path.read_bytes() != judged or not _still(path.stat(), seen):
            return False
        path.unlink()
    except OSError:
        return False
    return True


def _still(found: os.stat_result, seen: os.stat_result | None) -> bool:
    """Whether `found` is the file `seen` was (its inode, and its mtime: an inode number is
    given again to a file made after one is deleted); True when none was seen."""
    if seen is None:
        return True
    return (found.st_dev, found.st_ino, found.st_mtime_ns) == (
        seen.st_dev,
        seen.st_ino,
        seen.st_mtime_ns,
    )


def unlink_if_gone(path: Path, pid: int, only: Callable[[int], bool] | None = None) -> bool:
    """Delete the regular file at `path`, named by `pid`, when that pid's process is gone
    (memidx.process_start.owner_gone): True when it went. Judged on the file held open (its
    inode given to no other file meanwhile), then moved aside and deleted only while it is
    still that file: judged, then unlinked, a file a memidx given that pid made between was
    deleted under it (a copy of git's index git was writing); such a one goes back. `only`:
    a look at the file held open (its descriptor), which must say True too."""
    from memidx.portable import OPEN_AS_IS
    from memidx.process_start import owner_gone

    try:
        held = os.open(path, OPEN_AS_IS)
    except OSError:  # removed meanwhile (its memidx ended), or no file to judge
        return False
    try:
        judged = os.fstat(held)
        made = max(judged.st_ctime, judged.st_mtime)  # as memidx.process_start.made_at
        if not stat.S_ISREG(judged.st_mode) or not owner_gone(pid, made):
            return False
        if only is not None and not only(held):
            return False
        if sys.platform == "win32":  # pragma: no cover - a file held open is never renamed there
            os.close(held)
            held = -1
        return _judged_away(path, judged)
    except OSError:  # a folder it may not change: left, as before
        return False
    finally:
        if held >= 0:
            os.close(held)


def _judged_away(path: Path, judged: os.stat_result) -> bool:
    """Move `path` aside and delete it when it is the file `judged` (still held open), else
    put it back."""
    if (aside := room_aside(path)) is None:
        return False
    try:
        path.rename(aside)  # over the empty file made for it: never over another
        moved = aside.lstat()
    except OSError:
        with contextlib.suppress(OSError):
            aside.unlink(missing_ok=True)
        return False
    if (moved.st_dev, moved.st_ino) == (judged.st_dev, judged.st_ino):
        aside.unlink()  # (an error: left aside, swept by the next memidx once this one is gone)
        return True
    with contextlib.suppress(OSError):  # else left aside: swept once this process is gone
        _put_back(aside, path)
    return False


def _put_back(aside: Path, path: Path) -> None:
    try:
        path.hardlink_to(aside)
    except FileExistsError:  # a file saved at its path meanwhile: both kept
        return
    except OSError:  # no hard links on this disk: renamed back unless a file is there now
        if not os.path.lexists(path):
            aside.rename(path)
        return
    aside.unlink()


def room_aside(path: Path) -> Path | None:
    """An empty file made beside `path` for it to be moved over, named for this process and
    never one already there: a name with only the pid was renamed over, so a file left there
    by a memidx killed with that pid (an edit of the note in it) was lost."""
    from memidx.process_start import note_clock

    note_clock()  # a clock step since the move keeps it while this process runs (owner_gone)
    for n in range(100):
        aside = path.with_name(f".{path.name}{ASIDE}{os.getpid()}{f'-{n}' if n else ''}")
        try:
            os.close(os.open(aside, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except FileExistsError:
            continue
        except OSError:
            return None
        return aside
    return None
