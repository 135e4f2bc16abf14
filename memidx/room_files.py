"""The files memidx.portable.room_reserved makes to ask a disk for room: each is removed before
its room is allocated, but a process killed between making one and removing it leaves it, empty,
and every kill so left one more in `.memidx/`. The next room check removes those: only files
with its names, empty, regular (no link), of this user and disk, and old, never one another
check is making now (it removes its own within microseconds)."""

from __future__ import annotations

import os
import re
import stat
import time
from contextlib import suppress
from pathlib import Path

PREFIX = ".memidx-room-"
_NAME = re.compile(re.escape(PREFIX) + r"[a-z0-9_]{8}")  # tempfile.mkstemp's names
STALE = 60.0  # seconds: a file that old is a killed check's


def clean_stale(folder: Path, mine: os.stat_result) -> list[str]:
    """Remove the room files a killed check left in `folder` (`mine`: this check's own file,
    for the user and the disk); their names."""
    removed: list[str] = []
    with suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            if not _NAME.fullmatch(entry.name):
                continue
            with suppress(OSError):  # one gone meanwhile (a check removing its own, just
                # made) ended the scan: the stale ones after it were left
                if _stale(entry.stat(follow_symlinks=False), mine):
                    Path(entry.path).unlink()
                    removed.append(entry.name)
    return removed


def _stale(found: os.stat_result, mine: os.stat_result) -> bool:
    return (
        stat.S_ISREG(found.st_mode)
        and found.st_size == 0
        and found.st_nlink == 1
        and (found.st_uid, found.st_dev) == (mine.st_uid, mine.st_dev)
        and time.time() - found.st_mtime > STALE
    )
