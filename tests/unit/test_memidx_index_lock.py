"""An index.lock memidx takes for a move (memidx.git.move_script) is let go by a shell that
runs git commands one after the other: in the instant between two of them no git runs, and
another memidx's look for a lock a killed git left behind called it one (and said to rm it)."""

from __future__ import annotations

import os
import resource
import subprocess
from pathlib import Path

import pytest

from memidx.git.lock_holders import left_behind
from memidx.git.move_script import index_token, take_index_lock


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


def test_an_index_lock_memidx_could_not_write_its_token_in_is_not_left(tmp_path: Path) -> None:
    """A full disk when memidx wrote its token: the lock stayed, empty, and no shell let it go
    (it lets go only the lock with its token), so every git of the person was refused. A file
    size limit of 0 makes the write fail as a full disk does (Python ignores SIGXFSZ)."""
    git_dir = tmp_path / ".git"
    git_dir.mkdir()
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, hard))
    try:
        with pytest.raises(OSError):
            take_index_lock(git_dir, index_token(os.getpid(), "0" * 40))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert not (git_dir / "index.lock").exists()
    assert take_index_lock(git_dir, index_token(os.getpid(), "0" * 40))
