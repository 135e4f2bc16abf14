"""A folder held open, its files named through it wherever it is moved (POSIX's `dir_fd`): what
a server left in its memory's folder is removed there even after the folder was renamed. Beside
memidx/portable.py, by the same rule (tests/unit/test_portability.py); where the system has no
such thing (Windows), nothing is held and nothing is removed through it."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path


def held_folder(folder: Path) -> int | None:
    """A descriptor of `folder`, which follows it when it is renamed; None where none can be."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        return None
    try:
        return os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None


def moved(held: int, folder: Path) -> bool:
    """Whether the folder `held` is no longer at `folder` (renamed, or removed)."""
    try:
        now, there = os.fstat(held), folder.stat()
    except OSError:
        return True
    return (now.st_dev, now.st_ino) != (there.st_dev, there.st_ino)


def unlink_in(held: int, name: str) -> None:
    """Remove `name` in the folder `held`, wherever it is now (nothing when it is gone)."""
    with contextlib.suppress(OSError):
        os.unlink(name, dir_fd=held)
