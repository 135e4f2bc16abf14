"""What `memidx agent install` keeps in the user's state folder (memidx/agents/backups.py): a
list of the folders it made that two installs at once both keep."""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path

import pytest

from memidx.agents import backups
from memidx.agents.backups import make_folder, remove_made


@pytest.fixture
def slow_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each read of the list of folders memidx made waits (0.3 s at most) for another
    read: two installs unserialised both read it before either writes it."""
    both_read = threading.Barrier(2)
    read = backups._made  # pyright: ignore[reportPrivateUsage]

    def slow_read() -> list[str]:
        made = read()
        with contextlib.suppress(threading.BrokenBarrierError):
            both_read.wait(timeout=0.3)
        return made

    monkeypatch.setattr(backups, "_made", slow_read)


@pytest.mark.usefixtures("slow_reads")
def test_two_installs_at_once_both_keep_the_folders_they_made(tmp_path: Path) -> None:
    """Each read the list, then wrote it with its own folder only: the other's record was lost,
    and its uninstall left that empty folder behind."""
    made = [tmp_path / "a" / ".cursor" / "rules", tmp_path / "b" / ".cursor" / "rules"]
    threads = [threading.Thread(target=make_folder, args=(one,)) for one in made]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    for one in made:
        remove_made(one)
    assert list(tmp_path.iterdir()) == []  # a, b and what memidx made in them
