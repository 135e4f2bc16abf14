"""The upgrade to schema 6 on a disk with little room: an upgrade or a VACUUM that failed for
lack of room had logged pages until the disk was full, and the write-ahead log kept them (an
upgrade that fit, its committed pages): the disk stayed full (notes, git, the haystack could
not be written) for as long as any reader (an MCP or recall server) kept the index open, and
every writer failed. Now each waits for room (twice the pages in use: a copy in the log, one
in a temporary file), the index is written at schema 5 until then, and the log is emptied
after each. Needs root for `mount` (skipped without)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from memidx.index.connection import connect_reader
from memidx.index.store import open_store
from tests.cli.test_index_faults import fill_up, tmpfs
from tests.unit.test_index_upgrade_waits import silent_disk
from tests.unit.test_index_vectors_table import ROWS, _schema_5_index  # pyright: ignore[reportPrivateUsage]


def _log_size(path: Path) -> int:
    log = Path(f"{path}-wal")
    return log.stat().st_size if log.exists() else 0


@pytest.mark.parametrize("says", [True, False], ids=["disk-says-its-room", "disk-silent"])
def test_an_upgrade_short_of_room_leaves_no_full_log_on_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, says: bool
) -> None:
    """A disk silent on its free space (statvfs fails on some FUSE and network ones) has its
    room found by allocating it: the upgrade waited there for ever; tried blind, one that
    fit in the log but not in the file left the log holding the disk full."""
    if not says:
        monkeypatch.setattr(shutil, "disk_usage", silent_disk)
    source = tmp_path / "index.sqlite"
    rows = _schema_5_index(source)
    size = source.stat().st_size
    versions: set[int] = set()
    with tmpfs(tmp_path / "disk", "4m") as disk:
        path = disk / "index.sqlite"
        for eighths in range(8, 24):  # room left: 1 to 3 times the index
            for leftover in disk.iterdir():
                leftover.unlink()
            shutil.copy(source, path)
            reader = connect_reader(path)  # a server's connection: the log outlives the writer
            reader.execute("SELECT count(*) FROM documents").fetchone()
            fill_up(disk, leave=size * eighths // 8)
            store, _ = open_store(path, write=True)  # a writer, whatever the room
            versions.add(store.conn.execute("PRAGMA user_version").fetchone()[0])
            store.conn.close()
            assert _log_size(path) == 0, (eighths, _log_size(path))
            assert os.statvfs(disk).f_bavail > 0, eighths  # not disk_usage: silent here
            assert reader.execute(ROWS).fetchall() == rows
            reader.close()
    assert versions == {5, 6}  # the upgrade waited at some fill levels, not at all
