"""memidx waits for a git commit under way in its clone (memidx.git.publish.committing, seen in
/proc), and for no other repository's: a commit in a clone kept inside it (a submodule, a
scratch clone) held every `remember` 10 s, then left its note pending, and the finisher waited."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from memidx.git.publish import committing
from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env

WAITING = """#!/bin/sh
touch started
i=0
while [ ! -e go ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done
"""  # the pre-commit check: it says it started, then waits for the test's word (20 s at most)


def _commit_under_way(repo: NotesRepo) -> subprocess.Popen[bytes]:
    """A `git commit` of `repo` held in its pre-commit check until `go` is made."""
    hook = repo.write(".git/hooks/pre-commit", WAITING)
    hook.chmod(0o755)
    repo.write("staged.txt", "staged\n")
    repo.git("add", "staged.txt")
    person = subprocess.Popen(
        ["git", *GIT_IDENTITY, "commit", "-q", "-m", "held"], cwd=repo.root, env=clean_env(),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    for _ in range(100):
        if (repo.root / "started").exists():
            break
        time.sleep(0.1)
    return person


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="a commit under way is seen in /proc")
def test_a_commit_in_a_repository_inside_the_clone_is_not_the_clones(tmp_path: Path) -> None:
    clone = NotesRepo(tmp_path / "memory")
    clone.write(".gitignore", "inner/\nstarted\ngo\n")
    clone.commit("start")
    inner = NotesRepo(tmp_path / "memory" / "inner")
    inner.write(".gitignore", "started\ngo\n")
    inner.commit("start")
    person = _commit_under_way(inner)
    try:
        assert committing(inner.root)  # its own commit is seen
        assert not committing(clone.root)  # not the clone's
    finally:
        (inner.root / "go").touch()
        person.wait(timeout=30)
    person = _commit_under_way(clone)
    try:
        assert committing(clone.root)  # the clone's own commit still is
    finally:
        (clone.root / "go").touch()
        person.wait(timeout=30)
