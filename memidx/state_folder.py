"""The state folder (`.memidx/`) ignores itself: every folder memidx makes goes through
ensure_folder, so a state folder it makes, or brings back after `rm -rf .memidx` (a background
embed's lock, a hook's trace), holds its `.gitignore` before anything else, and a repository
whose own .gitignore does not name it never commits memidx's state with `git add -A`.

Lean (standard library only): file_lock and every hook's trace go through it."""

from __future__ import annotations

import errno
import os
from contextlib import suppress
from pathlib import Path

STATE = ".memidx"  # the name of Config.state_dir, fixed (the shell hook shim knows it too)
NO_FOLDER = (
    "a file or a link to no folder stands where memidx keeps its index and state, never "
    "written through (move it away, or make the folder it links to, then run the command again)"
)
IGNORE_ALL = b"# memidx's index and state: derived, never committed\n*\n"


def ensure_folder(folder: Path, *, parents: bool = True) -> None:
    """`folder.mkdir(parents=parents, exist_ok=True)`; a state folder made on the way (the
    folder itself or one above it) is made ignoring itself first, in the memory's folder only
    as it is. Raises what mkdir raises (FileNotFoundError when the memory's folder is gone, or
    without `parents` when the folder above is)."""
    if folder.is_dir():
        return  # the hot path: one stat
    for part in (folder, *folder.parents):
        if part.name == STATE:
            if not part.is_dir():
                if os.path.lexists(part) and not part.is_dir():  # mkdir said "File exists"
                    raise FileExistsError(errno.EEXIST, NO_FOLDER, str(part))
                _made_ignoring_itself(part)
            break
    folder.mkdir(parents=parents, exist_ok=True)


def make_above(folder: Path) -> None:
    """Make the folders above the state folder `folder` is in (or is): for an index kept
    outside the memory (`index = "~/indexes/x/.memidx/index.sqlite"`), whose folders are its
    own to make; ensure_folder never makes the folder a state folder is in (the memory's)."""
    for part in (folder, *folder.parents):
        if part.name == STATE:
            part.parent.mkdir(parents=True, exist_ok=True)
            return


def _made_ignoring_itself(state_dir: Path) -> None:
    """Make `state_dir` with its `.gitignore` in it at once: built as a folder of this
    process's beside it and renamed into place whole. Made first and filled after, another
    process saw it there, took it as done and made its folders in it, while the first's write
    failed (a full disk) and left it so: `.memidx/traces/` with no `.gitignore` (2 in 80
    rounds). A failure removes only what this process made. The folder it is in, the memory's,
    is never made (FileNotFoundError): one deleted while memidx ran was made again, holding a
    new index and the trace of a hook that failed for want of it."""
    own = state_dir.with_name(f"{state_dir.name}.{os.getpid()}.tmp")
    with suppress(FileExistsError):  # one a killed process of this pid left: this pid's
        own.mkdir()
    try:
        ignore_itself(own)
        own.rename(state_dir)  # over nothing, or an empty folder; never a full one
    except OSError:
        (own / ".gitignore").unlink(missing_ok=True)
        with suppress(OSError):
            own.rmdir()
        if not state_dir.is_dir():  # another process made it meanwhile: its own, whole
            raise


def ignore_itself(state_dir: Path) -> None:
    """Write `.gitignore` (ignore everything) into the state folder where nothing has that name:
    what is there (a user's file, a link, dangling or not) is never written through. Written
    whole under a name of this process's, then linked into place: another process never sees
    it half written, and a failure never removes a `.gitignore` another process made."""
    target = state_dir / ".gitignore"
    if os.path.lexists(target):
        return
    own = state_dir / f".gitignore.{os.getpid()}.tmp"
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        with os.fdopen(os.open(own, flags, 0o666), "wb") as out:
            out.write(IGNORE_ALL)
        try:
            os.link(own, target)
        except FileExistsError:  # another process's, whole: as good as this one
            pass
        except OSError:  # no hard links on this disk: written in place, as before
            _written_in_place(target)
    finally:
        own.unlink(missing_ok=True)


def _written_in_place(target: Path) -> None:
    """The `.gitignore` written at its name where nothing is, and removed when half written
    (this process's own: made with O_EXCL)."""
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        return
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(IGNORE_ALL)
    except OSError:
        target.unlink(missing_ok=True)
        raise
