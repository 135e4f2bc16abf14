"""The take-out (memidx/git/index_edit.py): a switch at memidx's commit took the note memidx
committed on its branch along to another branch's work tree, staged, and memidx takes it out.
When git refused (its index unwritable, a full disk), the file stayed there, staged on the
other branch for the person's next commit, and nothing was said: git's stderr was thrown
away. Now the take-out's answer carries git's last line, and memidx says what stayed."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from memidx.children import SHELL
from memidx.errors import GitError
from memidx.git.index_follow import follow
from memidx.git.plumbing import Plumbing
from tests.git_shims import put_git_first
from tests.helpers import started_memory
from tests.memories import TAKEN as TEXT
from tests.memories import TAKEN_REF as REF
from tests.memories import taken_along

SAID = "fatal: Unable to write new index file"
# a `git` first on PATH that refuses the change of git's index, as git does on a full disk
REFUSING_GIT = f"""#!/bin/sh
case " $* " in *" update-index "*) echo "{SAID}" >&2; exit 128 ;; esac
exec "$REAL_GIT" "$@"
"""


@pytest.mark.skipif(SHELL is None, reason="the take-out's shell is POSIX only")
def test_a_take_out_git_refused_says_what_git_said_and_what_stayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _ = taken_along(tmp_path)
    commit = repo.git("rev-parse", "main").strip()
    repo.git("add", REF)  # staged: `A` on side
    put_git_first(monkeypatch, tmp_path / "bin", REFUSING_GIT)
    done = f"{REF} was committed on main as {commit[:12]}"

    with pytest.raises(GitError) as raised:
        follow(
            Plumbing(repo.root), repo.root, [REF], commit, branch="refs/heads/main",
            deadline=time.monotonic() + 2, done=done, shows="",
        )  # fmt: skip

    monkeypatch.undo()
    said = raised.value
    assert said.message.startswith(f"{done}, but ") and SAID in said.message, said.message
    assert "\n" not in said.message, said.message
    assert f"git rm -q --cached --ignore-unmatch -- {REF}" in said.hint, said.hint
    assert (repo.root / REF).read_text() == TEXT  # nothing lost: as it was
    assert repo.git("status", "--porcelain") == f"A  {REF}\n"


@pytest.mark.skipif(SHELL is None, reason="the take-out's shell is POSIX only")
def test_a_git_folder_that_refuses_the_lock_is_said_so_not_held(tmp_path: Path) -> None:
    """git's index lock that cannot be made (the git folder unwritable) was taken for one
    another git holds: waited for until the deadline, then said "held"."""
    repo = started_memory(tmp_path)
    repo.git("branch", "side")
    repo.write(REF, TEXT)
    commit = repo.commit("disk")
    repo.git("switch", "-q", "side")
    repo.write(REF, TEXT)
    folder = repo.root / ".git"
    flagged = subprocess.run(["chattr", "+i", str(folder)], capture_output=True, check=False)
    if flagged.returncode != 0:
        pytest.skip("this file system has no immutable flag, and root ignores chmod")
    try:
        started = time.monotonic()
        with pytest.raises(GitError) as raised:
            follow(
                Plumbing(repo.root), repo.root, [REF], commit, branch="refs/heads/main",
                deadline=time.monotonic() + 5, done="committed", shows="",
            )  # fmt: skip
        waited = time.monotonic() - started
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)
    said = raised.value.message
    assert "Operation not permitted" in said, said  # the copy of git's index, before its lock
    assert "held" not in said and waited < 4, (waited, said)  # no wait for a git that is none
    assert (repo.root / REF).read_text() == TEXT
