"""`memidx share` with nothing to merge ran git's own `git merge @{upstream}` all the same.
That merge does not wait for a person's git as share's own merge does (memidx.memory
.share_move): when a person's `git pull` fetched between share's look and it, it merged what
that fetch brought, for real, while the pull's rebase ran; the chaos bench's clone c0 (seed 3)
ended with HEAD on that merge, the merged notes untracked and staged for deletion, and the
person's next commit deleted them. Now share merges nothing when there is nothing to merge:
what came meanwhile is merged on the next try, its own way."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.memory.share import share
from tests.cli.test_forget import clones

# a `git` first on PATH: at share's first `git merge`, the other clone pushes and this clone
# fetches (as a person's `git pull` does, in the instant after share's look)
FETCHING_GIT = """#!/bin/sh
if [ "$1" = merge ] && [ ! -e {marker} ]; then
    : > {marker}
    (cd {one} && {git} push -q origin main) && {git} fetch -q
fi
exec {git} "$@"
"""


def test_share_with_nothing_to_merge_runs_no_git_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = clones(tmp_path)
    two.note("mine.md", "Mine", "a note of the second clone about docker volumes")
    two.commit("two's note")
    one.note("theirs.md", "Theirs", "a note the first clone pushes at share's merge")
    one.commit("one's note")
    git = shutil.which("git")
    assert git is not None
    folder = tmp_path / "stand-in"
    folder.mkdir()
    marker = folder / "fetched"
    script = folder / "git"
    script.write_text(FETCHING_GIT.format(marker=marker, one=one.root, git=git))
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(folder), prepend=os.pathsep)

    done = share(load_config(two.root), sleep=lambda _: None)

    assert done.pushed
    reflog = two.git("reflog", "--format=%gs", "main")
    assert "merge @{upstream}" not in reflog  # git's own merge: it waits for no person's git
    assert not marker.exists()
    tree = two.git("ls-tree", "-r", "--name-only", "origin/main")
    assert "notes/mine.md" in tree
