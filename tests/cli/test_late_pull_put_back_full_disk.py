"""The put-back for a late `git pull` (memidx.git.late_pull.PUT_BACK) renames its copy of git's
index over the index only when the copy was made whole and reset: a copy cut short (the disk
full, as here a file size limit, under which `cp` fails with what it wrote left) was renamed
over the index all the same, and every git of the person's failed on it ("index file smaller
than expected") until they removed it and rebuilt it by hand. And git's index lock, taken with
memidx's token written in it in one step, was left behind, empty, when that write failed (a
file size limit set at that step): every `git add` or `commit` of the person's failed on it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from memidx.children import SHELL
from memidx.git.index_refresh import reset_words
from memidx.git.late_pull import PUT_BACK
from tests.git_shims import shim_env
from tests.helpers import GIT_IDENTITY, clean_env

# the put-back run under a file size limit a little over a ref's log, far under the index: a
# write past it fails (EFBIG, its signal ignored) as on a full disk
LIMITED = 'trap "" XFSZ; ulimit -f 8 || exit 99; exec "$0" -c "$PUT_BACK" memidx "$@"'
# the put-back's shell (the git's parent) may write nothing more from its look for the git
# folder on, the lock included: a disk full from that step on
FULL_FROM_THE_LOCK = """#!/bin/sh
if [ "$1" = rev-parse ] && [ "$2" = --absolute-git-dir ]; then
  prlimit --pid "$PPID" --fsize=0:unlimited || exit 99
fi
exec "$REAL_GIT" "$@"
"""


def _commits(root: Path, files: int) -> tuple[str, str]:
    """A clone at `root` of `files` files, then memidx's note committed: (before, after)."""
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    for n in range(files):
        (root / f"file-{n:04d}.md").write_text(f"{n}\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "the person's")
    (root / "notes").mkdir()
    (root / "notes" / "agent.md").write_text("memidx's note\n")
    _git(root, "add", "notes/agent.md")
    _git(root, "commit", "-q", "-m", "memidx's")
    both = _git(root, "rev-parse", "HEAD^", "HEAD").stdout.split()
    return both[0], both[1]


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *GIT_IDENTITY, *args], cwd=root, env=clean_env(),
                          capture_output=True, text=True, check=False)  # fmt: skip


@pytest.mark.skipif(SHELL is None, reason="PUT_BACK is a POSIX shell script")
def test_a_copy_of_the_index_cut_short_is_not_renamed_over_it(tmp_path: Path) -> None:
    assert SHELL is not None
    root = tmp_path / "clone"
    old, new = _commits(root, 400)  # an index of ~40 KB
    index = (root / ".git" / "index").read_bytes()
    assert len(index) > 16 * 1024

    argv = [SHELL, "-c", LIMITED, SHELL, "memidx: put back", "refs/heads/main", new, old,
            *reset_words(old, [":(literal)notes/agent.md"])]  # fmt: skip
    done = subprocess.run(argv, cwd=root, env=clean_env(PUT_BACK=PUT_BACK), capture_output=True,
                          text=True, check=False)  # fmt: skip

    assert done.returncode not in (91, 92, 99), done.stderr
    assert "File too large" in done.stderr, done.stderr  # the copy was cut short
    assert _git(root, "rev-parse", "main").stdout.strip() == old  # the ref put back
    assert (root / ".git" / "index").read_bytes() == index  # was: the cut copy renamed over it
    status = _git(root, "status", "--porcelain")
    assert status.returncode == 0, status.stderr
    left = sorted(p.name for p in (root / ".git").iterdir() if "put-back" in p.name)
    assert left == [] and not (root / ".git" / "index.lock").exists()


@pytest.mark.skipif(SHELL is None or not shutil.which("prlimit"), reason="a shell; prlimit")
def test_the_index_lock_is_let_go_when_its_token_cannot_be_written(tmp_path: Path) -> None:
    assert SHELL is not None
    root = tmp_path / "clone"
    old, new = _commits(root, 3)
    env = clean_env(PUT_BACK=PUT_BACK, **shim_env(tmp_path / "bin", FULL_FROM_THE_LOCK))
    unlimited = 'trap "" XFSZ; exec "$0" -c "$PUT_BACK" memidx "$@"'
    argv = [SHELL, "-c", unlimited, SHELL, "memidx: put back", "refs/heads/main", new, old,
            *reset_words(old, [":(literal)notes/agent.md"])]  # fmt: skip
    done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, check=False)

    assert done.returncode not in (91, 92, 99), done.stderr
    assert _git(root, "rev-parse", "main").stdout.strip() == old  # the ref put back
    assert not (root / ".git" / "index.lock").exists()  # was: left, empty, for good
    added = _git(root, "add", "notes/agent.md")  # the person's git works on
    assert added.returncode == 0, added.stderr


@pytest.mark.skipif(SHELL is None, reason="PUT_BACK is a POSIX shell script")
def test_a_lock_another_git_holds_is_left_to_it(tmp_path: Path) -> None:
    assert SHELL is not None
    root = tmp_path / "clone"
    old, new = _commits(root, 3)
    theirs = root / ".git" / "index.lock"
    theirs.write_bytes(b"DIRC what a git of the person's writes")
    argv = [SHELL, "-c", PUT_BACK, "memidx", "memidx: put back", "refs/heads/main", new, old,
            *reset_words(old, [":(literal)notes/agent.md"])]  # fmt: skip
    done = subprocess.run(argv, cwd=root, env=clean_env(), capture_output=True, text=True,
                          check=False)  # fmt: skip

    assert done.returncode == 0, done.stderr  # the ref put back, the index left to that git
    assert _git(root, "rev-parse", "main").stdout.strip() == old
    assert theirs.read_bytes() == b"DIRC what a git of the person's writes"
