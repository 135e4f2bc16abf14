"""Who holds remember.lock, read from /proc/locks (memidx/memory/lock_holder.py). Its lines name
the device as the file system's own `major:minor`, stat's on ext4, xfs, tmpfs and overlayfs
(this machine's /tmp and /work: ext4 on 254:0, `fe:00` in both) but not on a btrfs subvolume,
where stat gives each subvolume its own device: the holder was never found there, and a remember
in line named no one. A line of the same inode on another device now counts when that process
has this very file open."""

from __future__ import annotations

import fcntl
import os
import subprocess
from pathlib import Path

import pytest

from memidx.memory.lock_holder import _opened, flock_holder, holder_in  # pyright: ignore[reportPrivateUsage]

pytestmark = pytest.mark.skipif(not Path("/proc/locks").is_file(), reason="Linux /proc/locks")


def _line(pid: int, where: str) -> str:
    return f"1: FLOCK  ADVISORY  WRITE {pid} {where} 0 EOF\n"


def test_the_holder_is_found_on_this_machine(tmp_path: Path) -> None:
    lock = tmp_path / "remember.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert flock_holder(lock) == os.getpid()
    assert flock_holder(lock) is None


def test_a_line_on_the_file_systems_own_device_names_the_holder_that_has_the_file_open(
    tmp_path: Path,
) -> None:
    lock = tmp_path / "remember.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        found = lock.stat()
        subvolume = os.makedev(0, 0x31)  # a btrfs subvolume's, as stat gives it
        text = _line(os.getpid(), f"00:2f:{found.st_ino}")  # the file system's, in /proc/locks

        assert holder_in(text, subvolume, found.st_ino, lambda pid: _opened(pid, found)) == (
            os.getpid()
        )


def test_a_line_of_the_same_inode_elsewhere_held_by_another_names_no_one(tmp_path: Path) -> None:
    lock = tmp_path / "remember.lock"
    lock.write_text("")
    found = lock.stat()
    other = subprocess.Popen(["sleep", "30"])  # holds a file of that inode on another disk
    try:
        text = _line(other.pid, f"00:2f:{found.st_ino}")

        assert holder_in(text, found.st_dev, found.st_ino, lambda pid: _opened(pid, found)) is None
    finally:
        other.kill()
        other.wait(timeout=10)


@pytest.mark.parametrize(
    ("text", "dev", "holder"),
    [
        (_line(42, "fe:00:77"), os.makedev(254, 0), 42),  # ext4 on /dev/vda (254:0)
        (_line(42, "103:100:77"), os.makedev(259, 256), 42),  # a minor past 255: hex, unpadded
        ("1: -> FLOCK  ADVISORY  WRITE 43 fe:00:77 0 EOF\n" + _line(42, "fe:00:77"),
         os.makedev(254, 0), 42),  # a waiter's line is not the holder's
        (_line(42, "fe:00:770"), os.makedev(254, 0), None),  # another inode
    ],
)  # fmt: skip
def test_lines_are_read_by_device_and_inode(text: str, dev: int, holder: int | None) -> None:
    assert holder_in(text, dev, 77, lambda pid: False) == holder
