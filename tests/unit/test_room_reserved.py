"""The room an upgrade needs, asked of a disk that would not say its free space, by allocating
it to a file of its own (memidx.portable.room_reserved): the file is gone before its room is
taken, so a memidx killed meanwhile leaves none holding it, and none is left when the
allocation fails. A system without posix_fallocate (macOS) has no room found so: the upgrade
waits, said as such, where the missing call was an AttributeError out of every writer."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import time
from collections.abc import Generator
from contextlib import closing
from pathlib import Path

import pytest

from memidx import portable, room_files
from memidx.githooks.hook import run_hook
from memidx.index.schema_version import SCHEMA_VERSION
from memidx.memory.status import gather
from memidx.memory.upgrade_said import SAID
from tests.helpers import run_in_process
from tests.unit.test_index_upgrade_waits import (
    Usage,
    memory_at_schema,
    schema_of,
    silent_disk,
)


def test_the_room_file_is_gone_before_its_room_is_allocated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    allocate = os.posix_fallocate
    seen: list[list[str]] = []

    def watched(fd: int, offset: int, length: int) -> None:
        seen.append([p.name for p in tmp_path.iterdir()])  # what a kill -9 now would leave
        allocate(fd, offset, length)

    monkeypatch.setattr(os, "posix_fallocate", watched)

    assert portable.room_reserved(tmp_path, 1 << 20)
    assert seen == [[]] and list(tmp_path.iterdir()) == []


def test_a_room_the_disk_cannot_give_leaves_no_file(tmp_path: Path) -> None:
    assert not portable.room_reserved(tmp_path, 1 << 62)  # EFBIG or ENOSPC
    assert list(tmp_path.iterdir()) == []


def test_without_posix_fallocate_the_upgrade_of_a_silent_disk_waits_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """macOS has no posix_fallocate: `memidx sync` ended in an AttributeError traceback."""
    config = memory_at_schema(tmp_path, 5)
    monkeypatch.setattr(shutil, "disk_usage", silent_disk)
    monkeypatch.delattr(os, "posix_fallocate")

    assert not portable.room_reserved(tmp_path, 1)
    wait = gather(config).upgrade_waits
    assert wait is not None and wait.free is None
    synced = run_in_process(tmp_path, "sync")
    assert synced.code == 0, synced.err
    assert "(free space unknown): the index at " in synced.err
    assert "Traceback" not in synced.err
    assert schema_of(config.index_path) == 5
    assert [p.name for p in config.state_dir.iterdir() if "room" in p.name] == []


@pytest.mark.parametrize("room", [True, False])
def test_the_room_is_asked_once_per_opening(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, room: bool
) -> None:
    """A writer opening an index of schema 5 on a disk that would not say its free space
    allocated the room twice (whether the upgrade waits, then for its notice), filling the
    disk for a moment each time it was short. The VACUUM after an upgrade asks its own: the
    upgrade took some of the room found before it."""
    config = memory_at_schema(tmp_path, 5)
    monkeypatch.setattr(shutil, "disk_usage", silent_disk)
    asked: list[int] = []
    reserve = portable.room_reserved

    def counted(folder: Path, size: int) -> bool:
        asked.append(size)
        return room and reserve(folder, size)

    monkeypatch.setattr(portable, "room_reserved", counted)

    synced = run_in_process(tmp_path, "sync")

    assert synced.code == 0, synced.err
    assert len(asked) == (2 if room else 1)
    assert ("waits for" in synced.err) is not room
    assert schema_of(config.index_path) == (SCHEMA_VERSION if room else 5)


def test_a_git_hook_asks_the_room_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A post-commit hook asked it at the opening, then again to keep the line it said: the
    room allocated twice per hook on a disk short of it (a third time before)."""
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "0")
    config = memory_at_schema(tmp_path, 5)
    monkeypatch.setattr(shutil, "disk_usage", silent_disk)
    asked: list[int] = []

    def short(_folder: Path, size: int) -> bool:
        asked.append(size)
        return False

    monkeypatch.setattr(portable, "room_reserved", short)

    assert run_hook(config.root, "post-commit") == 0

    assert "free space unknown" in capsys.readouterr().out
    assert len(asked) == 1
    assert (config.state_dir / SAID).is_file()  # kept as said, from the opening's finding


def test_a_room_file_a_killed_check_left_is_removed_by_the_next(tmp_path: Path) -> None:
    """Killed between making its file and removing it, a check left an empty
    `.memidx-room-*` in `.memidx/` for good, one more at each kill. Only memidx's own (its
    names, empty, no link) and old ones are removed: never another check's, just made."""
    old = time.time() - 3600
    left = tmp_path / ".memidx-room-abc_1234"
    fresh = tmp_path / ".memidx-room-fresh123"
    full = tmp_path / ".memidx-room-full1234"
    other = tmp_path / ".memidx-room-x"  # not a name mkstemp gives
    target = tmp_path / "target"
    link = tmp_path / ".memidx-room-link1234"
    for path in (left, fresh, other, target):
        path.touch()
    full.write_bytes(b"x")
    link.symlink_to(target)
    for path in (left, full, other, target):
        os.utime(path, (old, old))
    os.utime(link, (old, old), follow_symlinks=False)

    assert portable.room_reserved(tmp_path, 1 << 10)

    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in (fresh, full, other, target, link)
    )


def test_the_vacuum_after_an_upgrade_asks_for_the_room_the_upgrade_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The room found before the upgrade was taken for its VACUUM's too: the upgrade's new
    table grew the file, and the VACUUM then ran where the disk no longer had room for it,
    filling the disk (the user's notes and git with it) until it failed."""
    config = memory_at_schema(tmp_path, 5)
    index = config.index_path
    with closing(sqlite3.connect(index)) as conn:
        pages, unused, size = (
            int(conn.execute(f"PRAGMA {name}").fetchone()[0])
            for name in ("page_count", "freelist_count", "page_size")
        )
    log = Path(f"{index}-wal")
    budget = index.stat().st_size + 2 * (pages - unused) * size + size  # a page to spare

    def disk(_folder: object) -> Usage:  # what the index and its log take is gone from it
        used = index.stat().st_size + (log.stat().st_size if log.exists() else 0)
        return Usage(budget, used, budget - used)

    monkeypatch.setattr(shutil, "disk_usage", disk)

    assert run_in_process(tmp_path, "sync").code == 0

    assert schema_of(index) == SCHEMA_VERSION
    with closing(sqlite3.connect(index)) as conn:
        assert int(conn.execute("PRAGMA freelist_count").fetchone()[0]) > 0  # no VACUUM


def test_a_room_file_gone_during_the_scan_does_not_end_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another check's file, made and removed within microseconds, can be listed and gone by
    the time it is looked at: that ended the scan, and every stale file after it stayed."""
    old = time.time() - 3600
    left = tmp_path / ".memidx-room-abc_1234"
    left.touch()
    os.utime(left, (old, old))
    scandir = os.scandir

    class Gone:
        name = ".memidx-room-gone1234"
        path = str(tmp_path / name)

        def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
            raise FileNotFoundError(self.path)

    @contextlib.contextmanager
    def listing(folder: Path) -> Generator[list[object]]:
        with scandir(folder) as entries:
            yield [Gone(), *entries]

    monkeypatch.setattr(os, "scandir", listing)

    assert room_files.clean_stale(tmp_path, tmp_path.stat()) == [left.name]
