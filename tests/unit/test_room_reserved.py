"""The room an upgrade needs, asked of a disk that would not say its free space, by allocating
it to a file of its own (memidx.portable.room_reserved): the file is gone before its room is
taken, so a memidx killed meanwhile leaves none holding it, and none is left when the
allocation fails. A system without posix_fallocate (macOS) has no room found so: the upgrade
waits, said as such, where the missing call was an AttributeError out of every writer."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from memidx import portable
from memidx.memory.status import gather
from tests.helpers import run_in_process
from tests.unit.test_index_upgrade_waits import memory_at_schema, schema_of, silent_disk


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
