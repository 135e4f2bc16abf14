"""A killed memidx's copy of git's index (`memidx-copied-index-<pid>`) is removed judged: looked
at (that pid gone), then unlinked, a copy a memidx given that pid made in between was removed
while its git wrote it (git then read no index at all, and that empty index was renamed over
git's)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import memidx.process_start
from memidx.git.index_copy import COPIED, remove_dead_copies


def _gone_pid() -> int:
    """The pid of a process that has ended (and been reaped): no process has it now."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_copy_made_anew_after_the_look_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pid = _gone_pid()
    copy = tmp_path / f"{COPIED}-{pid}"
    copy.write_bytes(b"DIRC the killed memidx's copy")
    judge = memidx.process_start.owner_gone

    def gone_then_made_anew(found: int, made: float) -> bool:
        gone = judge(found, made)
        copy.unlink()  # a memidx given that pid removes the killed one's copy of its name...
        copy.write_bytes(b"DIRC a live memidx's copy")  # ...and makes its own
        return gone

    monkeypatch.setattr(memidx.process_start, "owner_gone", gone_then_made_anew)

    remove_dead_copies(tmp_path)

    assert copy.read_bytes() == b"DIRC a live memidx's copy"
    assert sorted(path.name for path in tmp_path.iterdir()) == [copy.name]  # none aside


def test_a_dead_copy_goes(tmp_path: Path) -> None:
    pid = _gone_pid()
    for name in (f"{COPIED}-{pid}", f"{COPIED}-{pid}.seen", f"{COPIED}-{pid}.lock"):
        (tmp_path / name).write_bytes(b"DIRC the killed memidx's copy")

    remove_dead_copies(tmp_path)

    assert list(tmp_path.iterdir()) == []
