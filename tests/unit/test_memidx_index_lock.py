"""An index.lock memidx takes for a move (memidx.git.move_script) is let go by a shell that
runs git commands one after the other: in the instant between two of them no git runs, and
another memidx's look for a lock a killed git left behind called it one (and said to rm it)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from memidx.git.lock_holders import left_behind
from memidx.git.move_script import index_token


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="holders are seen in /proc")
def test_memidx_s_own_index_lock_is_held_while_its_shell_runs(tmp_path: Path) -> None:
    git_dir = tmp_path / ".git"
    git_dir.mkdir()
    lock = git_dir / "index.lock"
    lock.write_text(index_token(os.getpid(), "0" * 40))  # a running process: this one
    assert not left_behind(lock, tmp_path)

    gone = subprocess.Popen(["true"])
    gone.wait()  # its pid no longer runs
    lock.write_text(index_token(gone.pid, "0" * 40))
    assert left_behind(lock, tmp_path)
    lock.write_text("memidx 12x 00")  # not memidx's: a killed git's, as before
    assert left_behind(lock, tmp_path)
