"""The post-commit hook tells a merge `git commit` finished from git's files, with no git
process on every commit (memidx.githooks.merge_made)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from memidx.githooks.merge_made import merge_at_head
from tests.helpers import GIT_IDENTITY


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *GIT_IDENTITY, "-c", "core.hooksPath=/dev/null", *args], cwd=root,
                   check=True, capture_output=True)  # fmt: skip


def test_a_commit_is_no_merge_and_a_merge_is_one(tmp_path: Path) -> None:
    root = tmp_path / "r"
    git(tmp_path, "init", "-q", "-b", "main", str(root))
    git(root, "commit", "-q", "--allow-empty", "-m", "first")
    git(root, "switch", "-q", "-c", "side")
    git(root, "commit", "-q", "--allow-empty", "-m", "side")
    git(root, "switch", "-q", "main")
    git(root, "commit", "-q", "--allow-empty", "-m", "second")
    assert not merge_at_head(root)  # else every commit paid the merge check's git processes

    git(root, "merge", "-q", "--no-edit", "side")

    assert merge_at_head(root)


def test_what_the_files_cannot_tell_is_left_to_git(tmp_path: Path) -> None:
    root = tmp_path / "r"
    git(tmp_path, "init", "-q", "-b", "main", str(root))
    git(root, "commit", "-q", "--allow-empty", "-m", "first")
    git(root, "commit", "-q", "--allow-empty", "-m", "second")
    git(root, "gc", "-q")  # the ref and the object packed

    assert merge_at_head(root)
    assert merge_at_head(tmp_path / "no-repository")
