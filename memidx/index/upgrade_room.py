"""The room the upgrade of an index of schema 5 needs on its disk, and what is said while it
waits for it: the upgrade was skipped in silence, and a memory kept its old schema (and twice
the room for its vectors) with no one told why."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from memidx.index.schema_version import READABLE, SCHEMA_VERSION

COPIES = 2  # the upgrade's copy of the vectors, then the VACUUM's of the file, in the log
WAITS = f"index schema {READABLE}: upgrade to {SCHEMA_VERSION} waits for "  # how its line starts


class RoomWait:
    """An upgrade from schema 5 that waits for `needed` bytes free on the disk mounted at
    `disk` (`free` now, None when the disk would not say). No dataclass: every git hook
    imports this module, and dataclasses (with inspect) cost it ~12 ms (cli/test_hook_path.py)."""

    __slots__ = ("disk", "free", "needed")

    def __init__(self, needed: int, free: int | None, disk: str) -> None:
        self.needed = needed
        self.free = free
        self.disk = disk

    def line(self) -> str:
        """The one line for people, e.g. `index schema 5: upgrade to 6 waits for ...`."""
        now = "free space unknown" if self.free is None else f"{_mb(self.free)} free now"
        return f"{WAITS}{_mb(self.needed)} free on {self.disk} ({now})"

    def to_json(self) -> dict[str, object]:
        return {
            "from": READABLE, "to": SCHEMA_VERSION, "needed_bytes": self.needed,
            "free_bytes": self.free, "disk": self.disk,
        }  # fmt: skip


def room_for_copies(conn: sqlite3.Connection, copies: int) -> bool:
    """Whether the index's disk has room for `copies` copies of its pages in use."""
    return _has_room(*_room(conn, copies))


def room_wait(conn: sqlite3.Connection) -> RoomWait | None:
    """What the upgrade of the index on `conn` waits for on its disk: None when it is not of
    schema 5 or its disk has room for the upgrade (memidx.index.migrations.upgrade_waits)."""
    if int(conn.execute("PRAGMA user_version").fetchone()[0]) != READABLE:
        return None
    needed, free, folder = _room(conn, COPIES)
    if _has_room(needed, free, folder):
        return None
    return RoomWait(needed, free, str(mount_of(folder)))


def _room(conn: sqlite3.Connection, copies: int) -> tuple[int, int | None, Path]:
    """(bytes `copies` copies of the pages in use take, bytes free, the index's folder); the
    bytes free are None when asking fails (statvfs, on some FUSE and network file systems),
    never said as 0 bytes free."""
    pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
    unused = int(conn.execute("PRAGMA freelist_count").fetchone()[0])
    size = int(conn.execute("PRAGMA page_size").fetchone()[0])
    folder = Path(str(conn.execute("PRAGMA database_list").fetchone()[2])).parent
    import shutil  # only on the way to an upgrade: ~3.5 ms (bz2, lzma) every hook would pay

    try:
        free: int | None = shutil.disk_usage(folder).free
    except OSError:
        free = None
    return copies * (pages - unused) * size, free, folder


def _has_room(needed: int, free: int | None, folder: Path) -> bool:
    """Whether `needed` bytes are free: as the disk says, or, when it would not say, as
    allocating them to a file in `folder` finds (taken for no room, the upgrade of a memory
    on such a disk waited for ever; tried blind, one on a disk short of room left its log
    holding the disk full, see memidx.index.migrations._empty_log)."""
    if free is not None:
        return free > needed
    from memidx.portable import room_reserved

    return room_reserved(folder, needed)


def mount_of(folder: Path) -> Path:
    """The mount point of the file system that holds `folder` (the disk to free room on)."""
    path = folder.resolve()
    while not os.path.ismount(path) and path.parent != path:
        path = path.parent
    return path


def _mb(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MB"
