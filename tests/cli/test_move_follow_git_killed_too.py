"""memidx and its own follow's git (memidx.git.move_follow._ran, on memidx's copy of git's
index) killed together, as a kill of the session kills them: the git left its lock of that
copy (`memidx-follow-index-<pid>.lock`) with no process behind it. The move's shell, which
waits for a git of memidx's still running on that copy (tests/cli/test_move_follow_git_
outlives.py), waited the whole 10 s for that lock, holding git's index.lock: every `git add`,
`commit` or `switch` of the person's refused ("index.lock: File exists") and the note not
written for 10 s. It waits only while that git runs."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from memidx.children import SHELL
from tests.cli.test_move_follow_git_outlives import REMEMBER
from tests.git_shims import shim_env
from tests.helpers import clean_env, started_memory

pytestmark = pytest.mark.skipif(
    SHELL is None or not Path("/proc/self/stat").is_file(), reason="the move's shell, /proc"
)
# the git memidx's own follow runs on its copy takes the copy's lock as git does, then memidx
# (its parent) and it are killed: the lock stays, held by no process
KILLED_WITH_MEMIDX = """#!/bin/sh
case $GIT_INDEX_FILE in */memidx-follow-index-[0-9]*)
  case " $* " in *" checkout "*)
    : >"$GIT_INDEX_FILE.lock"; kill -9 "$PPID"; kill -9 $$;;
  esac;;
esac
exec "$REAL_GIT" "$@"
"""


def test_a_git_killed_with_memidx_holds_git_s_index_no_longer(tmp_path: Path) -> None:
    repo = started_memory(tmp_path / "m")
    env = clean_env(**shim_env(tmp_path / "bin", KILLED_WITH_MEMIDX))
    argv = [sys.executable, "-c", REMEMBER, str(repo.root)]
    done = subprocess.run(argv, cwd=repo.root, env=env, input=b"Deploys go out on Tuesdays.\n",
                          capture_output=True, check=False)  # fmt: skip
    killed = time.monotonic()
    assert done.returncode == -9, done.stderr.decode()  # killed as its git ran
    git_dir = repo.root / ".git"
    assert list(git_dir.glob("memidx-follow-index-*.lock")), "the killed git's lock"
    while (git_dir / "index.lock").exists() and time.monotonic() - killed < 30:
        time.sleep(0.05)
    held = time.monotonic() - killed

    assert held < 5, f"git's index.lock held {held:.1f} s after memidx was killed"  # was: 10 s
    assert repo.git("status", "--porcelain", "-uall") == ""  # the note written, committed
