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
from tests.cli.test_move_follow_git_outlives import REMEMBER, SAVED
from tests.git_shims import shim_env
from tests.helpers import clean_env, started_memory

pytestmark = pytest.mark.skipif(
    SHELL is None or not Path("/proc/self/stat").is_file(), reason="the move's shell, /proc"
)
# memidx killed once it noted its git's pid (`<copy>.git`, 2 s at most: none before the fix);
# killed before, the shell waits on the copy's lock, as before
NOTED = """noted() { n=0; while [ ! -s "$GIT_INDEX_FILE.git" ] && [ $n -lt 200 ]; do
  sleep 0.01; n=$((n + 1)); done; }
"""
# the git memidx's own follow runs on its copy takes the copy's lock as git does, then memidx
# (its parent) and it are killed: the lock stays, held by no process
KILLED_WITH_MEMIDX = (
    """#!/bin/sh
"""
    + NOTED
    + """case $GIT_INDEX_FILE in */memidx-follow-index-[0-9]*)
  case " $* " in *" checkout "*)
    : >"$GIT_INDEX_FILE.lock"; noted; kill -9 "$PPID"; kill -9 $$;;
  esac;;
esac
exec "$REAL_GIT" "$@"
"""
)

# as test_move_follow_git_outlives.SLOW_GIT, its end said in $DONE (a copy the sweep took: the
# slow git writes the note all the same, on an index of its own)
SLOW_GIT = (
    """#!/bin/sh
"""
    + NOTED
    + """case $GIT_INDEX_FILE in */memidx-follow-index-[0-9]*)
  case " $* " in *" checkout "*)
    idx=$GIT_INDEX_FILE; : >"$idx.lock"; noted; kill -9 "$PPID"; sleep 3
    cp -p "$idx" "$idx-slow" 2>/dev/null; GIT_INDEX_FILE=$idx-slow "$REAL_GIT" "$@"; ran=$?
    rm -f "$idx-slow" "$idx.lock"; : >"$DONE"; exit $ran;;
  esac;;
esac
exec "$REAL_GIT" "$@"
"""
)


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


def test_a_sweep_of_the_killed_memidx_s_copies_cuts_no_wait_short(tmp_path: Path) -> None:
    """Another memidx's take of git's index (remove_dead_copies, each hook's) removed the
    killed memidx's copy and its lock as the move's shell waited on that lock: the shell went
    on, let the lock go, and the git memidx had started wrote the note over a later edit."""
    from memidx.git.index_copy import remove_dead_copies

    repo = started_memory(tmp_path / "m")
    ended = tmp_path / "slow-git-ended"
    env = clean_env(**shim_env(tmp_path / "bin", SLOW_GIT), DONE=str(ended))
    argv = [sys.executable, "-c", REMEMBER, str(repo.root)]
    done = subprocess.run(argv, cwd=repo.root, env=env, input=b"Deploys go out on Tuesdays.\n",
                          capture_output=True, check=False)  # fmt: skip
    assert done.returncode == -9, done.stderr.decode()  # killed as its git ran
    git_dir = repo.root / ".git"
    time.sleep(0.5)  # the shell took its look at the copy
    remove_dead_copies(git_dir)  # a memidx of a hook, as it takes git's index (refused)
    assert not list(git_dir.glob("memidx-follow-index-*.lock")), "the sweep took the lock"
    for _ in range(400):  # the move's shell's end lets git's index go
        if not (git_dir / "index.lock").exists():
            break
        time.sleep(0.05)
    notes = [p for p in (repo.root / "notes").rglob("*.md") if "deploy" in p.name]
    assert len(notes) == 1, notes
    with notes[0].open("ab") as file:  # saved once the remember was done, as far as git tells
        file.write(SAVED)
    for _ in range(600):  # the slow git's end (3 s after memidx's)
        if ended.exists():
            break
        time.sleep(0.05)
    assert ended.exists(), "the slow git ended"

    assert notes[0].read_bytes().endswith(SAVED)  # was: written over by the slow git
