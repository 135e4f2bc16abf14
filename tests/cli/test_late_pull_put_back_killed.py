"""The copy of git's index the put-back for a late `git pull` resets (memidx.git.late_pull.PUT_BACK)
is one memidx.git.folder_asides finds when the put-back's shell is killed with it made: it
was `.git/memidx-put-back-<pid>`, which nothing looked for, left in the git folder for good
and never named by `memidx status`. The shell is killed, deterministically, as it runs the
reset (a `git` first on PATH)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memidx.children import SHELL
from memidx.git.folder_asides import asides_left, sweep_asides
from memidx.git.index_refresh import reset_words
from memidx.git.late_pull import PUT_BACK
from tests.git_shims import shim_env
from tests.helpers import GIT_IDENTITY, clean_env

# the put-back's shell killed as it resets its copy of the index
KILLED_AT_THE_RESET = """#!/bin/sh
if [ "$1" = reset ] && [ -n "$GIT_INDEX_FILE" ]; then kill -9 "$PPID"; exit 1; fi
exec "$REAL_GIT" "$@"
"""


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *GIT_IDENTITY, *args], cwd=root, env=clean_env(),
                          capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout.strip()


def _killed_put_back(tmp_path: Path, shim: str) -> Path:
    """The git folder of a clone whose put-back (of memidx's commit, for a late pull) was
    killed by the `git` shim `shim`, on PATH first."""
    assert SHELL is not None
    root = tmp_path / "clone"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / "seed.md").write_text("seed\n")
    _git(root, "add", "seed.md")
    _git(root, "commit", "-q", "-m", "the person's")
    (root / "notes").mkdir()
    (root / "notes" / "agent.md").write_text("memidx's note\n")
    _git(root, "add", "notes/agent.md")
    _git(root, "commit", "-q", "-m", "memidx's")
    old, new = _git(root, "rev-parse", "HEAD^", "HEAD").split()
    env = clean_env(**shim_env(tmp_path / "bin", shim))
    argv = [SHELL, "-c", PUT_BACK, "memidx", "memidx: put back", "refs/heads/main", new, old,
            *reset_words(old, [":(literal)notes/agent.md"])]  # fmt: skip
    done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == -9, done.stderr  # killed by the shim
    return root / ".git"


@pytest.mark.skipif(SHELL is None, reason="PUT_BACK is a POSIX shell script")
def test_the_copy_a_killed_put_back_left_is_named_and_swept(tmp_path: Path) -> None:
    git_dir = _killed_put_back(tmp_path, KILLED_AT_THE_RESET)
    copies = [p for p in git_dir.iterdir() if "put-back" in p.name]
    assert len(copies) == 1, copies  # the copy it made, left

    assert asides_left(git_dir) == copies  # was: [], named nowhere
    (git_dir / "index.lock").unlink()  # the lock left beside it: `memidx status` names it
    sweep_asides(git_dir)
    assert [p for p in git_dir.iterdir() if "put-back" in p.name] == []  # was: left for good


# the put-back's shell and its `git reset` killed as git holds its lock of the copy (git takes
# `<copy>.lock` first: the shim takes it as git does, then both go, as a kill of the session)
KILLED_IN_THE_RESET = """#!/bin/sh
if [ "$1" = reset ] && [ -n "$GIT_INDEX_FILE" ]; then
  : >"$GIT_INDEX_FILE.lock"; kill -9 "$PPID"; kill -9 $$
fi
exec "$REAL_GIT" "$@"
"""


@pytest.mark.skipif(SHELL is None, reason="PUT_BACK is a POSIX shell script")
def test_the_lock_of_the_copy_a_killed_reset_left_is_named_and_swept(tmp_path: Path) -> None:
    """git's lock of the put-back's copy (`.memidx-put-back-<pid>.memidx-<pid>.lock`) was no
    name memidx.git.folder_asides knew: never swept, never named by `memidx status`."""
    git_dir = _killed_put_back(tmp_path, KILLED_IN_THE_RESET)
    left = sorted(p for p in git_dir.iterdir() if "put-back" in p.name)
    assert [p.name.endswith(".lock") for p in left] == [False, True], left  # the copy, its lock

    assert asides_left(git_dir) == left  # the lock was named nowhere
    (git_dir / "index.lock").unlink()  # the lock left beside it: `memidx status` names it
    sweep_asides(git_dir)
    assert [p for p in git_dir.iterdir() if "put-back" in p.name] == []  # the lock left for good
