"""pull.twohead=recursive, which git merge reads: before git 2.50 that is git's older merge
strategy, not ort, and share merged with its plumbing (merge-tree: ort) all the same."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.memory.share import share
from tests.cli.test_share_in_the_way import behind

VERSION = subprocess.run(["git", "version"], capture_output=True, text=True, check=True).stdout
ORT = tuple(int(n) for n in VERSION.split()[2].split(".")[:2]) >= (2, 50)


@pytest.mark.skipif(ORT, reason="from git 2.50 on, recursive is ort: share's own merge")
def test_pull_twohead_recursive_is_merged_by_git_with_that_strategy(tmp_path: Path) -> None:
    two = behind(tmp_path, diverged=True)
    two.git("config", "pull.twohead", "recursive")

    assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed

    said = two.git("reflog", "-1", "--format=%gs", "main")
    assert "Merge made by the 'recursive' strategy" in said, said  # was "memidx share: merge"
    assert (
        two.git("ls-remote", "origin", "refs/heads/main").split()[0]
        == two.git("rev-parse", "main").strip()
    )
