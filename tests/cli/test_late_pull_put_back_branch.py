"""The put-back for a late `git pull` (memidx.git.late_pull) puts back the ref memidx moved.
That ref's name was read before the move (memidx.git.commit.publish), not while git held
HEAD's lock: a person's `git checkout -b other` in between had the move take `other` (HEAD
names it) while the put-back named `main`, which was never moved: its compare-and-swap
refused, nothing was put back, and the pull failed on memidx's note ("untracked working tree
files would be overwritten by merge"). The name is read under HEAD's lock now.

The checkout is made, deterministically, right before the move; the pull as in
tests/cli/test_late_pull_fetch.py (started at the move, held in its fetch)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from memidx.git import publish as publish_module
from tests.cli.test_late_pull_fetch import NOTE, _commit_beside_a_late_pull  # pyright: ignore[reportPrivateUsage]
from tests.helpers import clean_env


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_checkout_before_the_move_has_the_branch_moved_put_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = publish_module.move_head
    switched: list[str] = []

    def checkout_first(root: Path, *args: Any, **kwargs: Any) -> str:
        if not switched:  # the person's checkout, of a branch at HEAD's commit
            argv = ["git", "checkout", "-q", "-b", "other", "--track", "origin/main"]
            subprocess.run(argv, cwd=root, env=clean_env(), check=True, capture_output=True)
            switched.append("other")
        return real(root, *args, **kwargs)

    monkeypatch.setattr(publish_module, "move_head", checkout_first)
    one, pulled = _commit_beside_a_late_pull(tmp_path, monkeypatch, "notes/agent.md",
                                             NOTE.encode())  # fmt: skip

    assert switched
    assert "reset --hard" not in pulled.stderr, pulled.stderr
    assert pulled.returncode == 0, pulled.stderr  # was: untracked files would be overwritten
    assert one.git("symbolic-ref", "HEAD").strip() == "refs/heads/other"
    assert "notes/theirs.md" in one.git("ls-tree", "-r", "--name-only", "other").split()
    assert one.git("rev-parse", "main").strip() == one.git("rev-parse", "origin/main~1").strip()
    assert one.git("status", "--porcelain").strip() == ""  # nothing of memidx's left half-made
