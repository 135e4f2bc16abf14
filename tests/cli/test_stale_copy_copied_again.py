"""memidx's move brings a copy of git's index to its commit before it takes `.git/index.lock`
(memidx.git.index_swap), so that it holds the lock only for a rename. When a person's git
wrote the index between that copy and the move (a `git add` there), the copy no longer stood
for the index and the move's follow ran `git reset` on git's index under the lock (~10-50 ms
at a load of ~20, every `git add`, `commit`, `switch` or `stash` of the person's refused,
"index.lock: File exists"): the slow path. Now that move is aborted and the index copied
again (a few times: one that keeps changing still takes the slow path)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.children import SHELL
from tests.git_shims import put_git_first
from tests.helpers import started_memory

REF = "notes/disk-full.md"
TEXT = "---\ntitle: Disk full\n---\n\nThe disk was full of old logs.\n"
# a `git` first on PATH: at memidx's first move (its `git update-ref`, after the copy) the
# person's `git add` runs; a git memidx runs on a copy of the index while index.lock is taken
# (the slow path's follow) goes to $LOG
PERSON_AT_THE_MOVE = """#!/bin/sh
case " $* " in *" update-ref "*)
  if [ ! -e "$MARK" ]; then
    : > "$MARK"
    ( cd "$ROOT" && env -u GIT_INDEX_FILE "$REAL_GIT" add person.txt ) 2>> "$LOG" || \\
      echo "the person's git add failed" >> "$LOG"
  fi ;;
esac
case "$GIT_INDEX_FILE" in *memidx-follow-index)
  [ ! -e "$ROOT/.git/index.lock" ] || echo "memidx ran git $* under index.lock" >> "$LOG" ;;
esac
exec "$REAL_GIT" "$@"
"""


@pytest.mark.skipif(SHELL is None, reason="the move's follow runs in a POSIX shell")
def test_a_copy_gone_stale_before_the_move_is_made_again_not_followed_under_the_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memidx.config import load_config
    from memidx.git.commit import commit_paths

    repo = started_memory(tmp_path)
    (repo.root / "person.txt").write_text("the person's work\n")
    repo.write(REF, TEXT)
    log = tmp_path / "log"
    log.write_text("")
    put_git_first(
        monkeypatch, tmp_path / "bin", PERSON_AT_THE_MOVE,
        LOG=str(log), MARK=str(tmp_path / "mark"), ROOT=str(repo.root),
    )  # fmt: skip

    commit = commit_paths(load_config(repo.root), [REF], "remember disk full")

    monkeypatch.undo()
    assert (tmp_path / "mark").exists()  # the person did run at memidx's move
    assert log.read_text() == ""
    assert repo.git("rev-parse", "HEAD").strip() == commit
    assert not (repo.root / ".git" / "index.lock").exists()
    status = repo.git("status", "--porcelain", "--untracked-files=all")
    assert status == "A  person.txt\n"  # the person's add kept, the note as committed
