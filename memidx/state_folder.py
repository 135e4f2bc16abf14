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
    folder itself or one above it) is made ignoring itself first. Raises what mkdir raises
    (FileNotFoundError without `parents` when the folder above is gone)."""
    if folder.is_dir():
        return  # the hot path: one stat
    for part in (folder, *folder.parents):
        if part.name == STATE:
            if not part.is_dir():
                if os.path.lexists(part) and not part.is_dir():  # mkdir said "File exists"
                    raise FileExistsError(errno.EEXIST, NO_FOLDER, str(part))
                part.mkdir(parents=parents, exist_ok=True)
                try:
                    ignore_itself(part)
                except OSError:  # a full disk: not left ignoring nothing (made again next time)
                    with suppress(OSError):
                        part.rmdir()  # only when empty: another's file in it is never removed
                    raise
            break
    folder.mkdir(parents=parents, exist_ok=True)


def ignore_itself(state_dir: Path) -> None:
    """Write `.gitignore` (ignore everything) into the state folder where nothing has that name:
    what is there (a user's file, a link, dangling or not) is never written through."""
    try:
        fd = os.open(state_dir / ".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        return
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(IGNORE_ALL)
    except OSError:  # a full disk: no empty file left that ignores nothing, nor any claim
        (state_dir / ".gitignore").unlink(missing_ok=True)
        raise
