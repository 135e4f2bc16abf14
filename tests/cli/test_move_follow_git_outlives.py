"""memidx killed as its own follow's git runs (memidx.git.move_follow._ran: `git checkout` of a
remembered note on memidx's copy of git's index): that git, its child, runs on. The move's
shell did its follow again at once, let git's index lock go, and the git memidx had started
wrote the note once more after that, over what was saved into it since. The shell now waits
for that git to let go of memidx's copy (its lock) before it does its follow again."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from memidx.children import SHELL
from tests.git_shims import shim_env
from tests.helpers import clean_env, started_memory
from tests.move_shell import shell_ended

pytestmark = pytest.mark.skipif(
    SHELL is None or not Path("/proc/self/stat").is_file(), reason="the move's shell, /proc"
)
# the git memidx's own follow runs on its copy, slow: it takes the copy's lock as git does,
# memidx is killed (its parent), and it does its checkout 3 s later, still under that lock
SLOW_GIT = """#!/bin/sh
case $GIT_INDEX_FILE in */memidx-follow-index-[0-9]*)
  case " $* " in *" checkout "*)
    idx=$GIT_INDEX_FILE; : >"$idx.lock"; kill -9 "$PPID"; sleep 3
    cp -p "$idx" "$idx-slow"; GIT_INDEX_FILE=$idx-slow "$REAL_GIT" "$@"; ran=$?
    mv -f "$idx-slow" "$idx"; rm -f "$idx.lock"; exit $ran;;
  esac;;
esac
exec "$REAL_GIT" "$@"
"""
# a remember whose follow is memidx's own (index_swap.usable says no)
REMEMBER = """
import sys
from memidx.git import index_swap
index_swap.usable = lambda *args, **kwargs: False
from memidx.cli.main import main
main(["-C", sys.argv[1], "remember", "--title", "Deploy days"])
"""
SAVED = b"The agent's own line, saved once the remember was done.\n"


def test_the_git_a_killed_memidx_left_running_writes_no_note_over_a_later_edit(
    tmp_path: Path,
) -> None:
    repo = started_memory(tmp_path / "m")
    env = clean_env(**shim_env(tmp_path / "bin", SLOW_GIT))
    argv = [sys.executable, "-c", REMEMBER, str(repo.root)]
    body = "Deploys go out on Tuesdays.\n"
    done = subprocess.run(argv, cwd=repo.root, env=env, input=body.encode(),
                          capture_output=True, check=False)  # fmt: skip
    assert done.returncode == -9, done.stderr.decode()  # killed as its git ran
    shell_ended(repo.root)  # the shell runs on (its own session): its end lets the lock go
    notes = [p for p in (repo.root / "notes").rglob("*.md") if "deploy" in p.name]
    assert len(notes) == 1, notes
    with notes[0].open("ab") as file:  # saved once the remember was done, as far as git tells
        file.write(SAVED)
    git_dir = repo.root / ".git"
    for _ in range(400):  # the slow git's end
        if not list(git_dir.glob("memidx-follow-index-*")):
            break
        time.sleep(0.05)
    time.sleep(0.2)

    assert notes[0].read_bytes().endswith(SAVED)  # was: written over by the slow git
