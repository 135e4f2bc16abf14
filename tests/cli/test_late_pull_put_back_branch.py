"""The put-back for a late `git pull` (memidx.git.late_pull) puts back the ref memidx moved,
and git's index with it only while HEAD names that ref.

The ref's name was read before the move (memidx.git.commit.publish), not while git held
HEAD's lock: a person's `git checkout -b other` in between had the move take `other` (HEAD
names it) while the put-back named `main`, which was never moved: its compare-and-swap
refused, nothing was put back, and the pull failed on memidx's note ("untracked working tree
files would be overwritten by merge"). The name is read under HEAD's lock now.

The put-back looked at HEAD, then reset git's index at memidx's paths: a person's `git
checkout x` in between, x holding memidx's note byte for byte, had the reset stage its deletion
on x and its file removed (`D  notes/agent.md`). The reset is made under git's index lock now,
HEAD looked at under it (such a checkout is refused, as beside any git that holds the index).

Each checkout is made, deterministically, at that point (a `git` first on PATH for the one
in the put-back); the pull as in tests/cli/test_late_pull_fetch.py (started at the move,
held in its fetch)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from memidx.git import publish as publish_module
from tests.git_shims import put_git_first
from tests.helpers import GIT_IDENTITY, clean_env
from tests.late_pulls import NOTE, commit_beside_a_late_pull

# the person's `git checkout x` (in the person's environment: git's own index) run once,
# right before the first `git reset` after it is armed
CHECKOUT_AT_THE_RESET = """#!/bin/sh
if [ "$1" = reset ] && [ -e "$ARMED" ]; then
  rm -f "$ARMED"; ( unset GIT_INDEX_FILE; "$REAL_GIT" checkout -q x ) >>"$LOG" 2>&1
  echo "checkout: $?" >>"$LOG"
fi
exec "$REAL_GIT" "$@"
"""


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
    one, pulled = commit_beside_a_late_pull(tmp_path, monkeypatch, "notes/agent.md",
                                             NOTE.encode())  # fmt: skip

    assert switched
    assert "reset --hard" not in pulled.stderr, pulled.stderr
    assert pulled.returncode == 0, pulled.stderr  # was: untracked files would be overwritten
    assert one.git("symbolic-ref", "HEAD").strip() == "refs/heads/other"
    assert "notes/theirs.md" in one.git("ls-tree", "-r", "--name-only", "other").split()
    assert one.git("rev-parse", "main").strip() == one.git("rev-parse", "origin/main~1").strip()
    assert one.git("status", "--porcelain").strip() == ""  # nothing of memidx's left half-made


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_checkout_at_the_put_back_s_reset_leaves_that_branch_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    armed, log = tmp_path / "armed", tmp_path / "log"
    put_git_first(monkeypatch, tmp_path / "bin", CHECKOUT_AT_THE_RESET, ARMED=str(armed),
                  LOG=str(log))  # fmt: skip
    real = publish_module.move_head

    def x_first(root: Path, *args: Any, **kwargs: Any) -> str:
        if not log.exists():  # x holds memidx's note as it will commit it (with plumbing:
            # the index and the work tree untouched, or the pull's start wrote a racy index)
            def git(*step: str, given: bytes = b"", index: str = "") -> str:
                env = clean_env(GIT_INDEX_FILE=index) if index else clean_env()
                done = subprocess.run(["git", *GIT_IDENTITY, *step], cwd=root, env=env,
                                      input=given, capture_output=True, check=True)  # fmt: skip
                return done.stdout.decode().strip()

            blob = git("hash-object", "-w", "--stdin", given=NOTE.encode())
            index = str(tmp_path / "x.index")
            git("read-tree", "HEAD", index=index)
            git("update-index", "--add", "--cacheinfo", f"100644,{blob},notes/agent.md",
                index=index)  # fmt: skip
            tree = git("write-tree", index=index)
            git("branch", "x", git("commit-tree", tree, "-p", "HEAD", "-m", "x"))
            log.write_text("")
        return real(root, *args, **kwargs)

    looked = publish_module.arrived

    def arm(*args: Any) -> bool:
        armed.touch()  # under HEAD's lock: the next reset is the put-back's (not the move's)
        return looked(*args)

    monkeypatch.setattr(publish_module, "move_head", x_first)
    monkeypatch.setattr(publish_module, "arrived", arm)
    seen: list[str] = []  # the clone once memidx is done, before the pull goes on

    def look() -> None:
        argv = ["git", "status", "--porcelain"]
        done = subprocess.run(argv, cwd=tmp_path / "one", env=clean_env(), capture_output=True,
                              text=True, check=True)  # fmt: skip
        seen.append(done.stdout.strip())

    one, pulled = commit_beside_a_late_pull(tmp_path, monkeypatch, "notes/agent.md",
                                             NOTE.encode(), before=look)  # fmt: skip

    assert "checkout:" in log.read_text(), log.read_text()
    assert seen == [""], seen  # was: D  notes/agent.md, staged on x, its file removed
    assert one.git("status", "--porcelain").strip() == ""
    if one.git("symbolic-ref", "HEAD").strip() == "refs/heads/main":  # checkout refused
        assert pulled.returncode == 0, pulled.stderr
        assert "notes/theirs.md" in one.git("ls-tree", "-r", "--name-only", "HEAD").split()
