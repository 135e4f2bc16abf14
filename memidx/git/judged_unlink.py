"""Deleting a file only while it holds the bytes memidx judged (forget's note, share's twin at
its old name): read, then unlinked, an edit saved in between was deleted with it. The file is
moved aside first (one rename: a save at its path after it makes a new file, never touched),
compared there, and then deleted, or put back when it differs."""

from __future__ import annotations

import os
from pathlib import Path

from memidx.git.killed_edit import ASIDE


def unlink_judged(path: Path, judged: bytes) -> bool:
    """Delete the regular file at `path` when it holds exactly `judged`; True when it went.
    One that differs goes back to `path` (a hard link: never over a file saved there since,
    when it stays aside as `.<name>.memidx-<pid>`, which the next sync or status puts back or
    names once this process is gone)."""
    if path.is_symlink() or not path.is_file():
        return False
    aside = path.with_name(f".{path.name}{ASIDE}{os.getpid()}")
    try:
        path.rename(aside)
    except OSError:
        return False
    try:
        same = not aside.is_symlink() and aside.read_bytes() == judged
    except OSError:
        same = False
    if same:
        aside.unlink()
        return True
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
