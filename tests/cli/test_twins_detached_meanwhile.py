"""share looks for twin notes (memidx.memory.twins) with HEAD and its upstream named at each
git command: a `git pull --rebase` that detached HEAD between two of them failed the share with
git's own "git diff-tree failed: fatal: HEAD does not point to a branch"
(tests/benchmark/chaos.py, seed 1, c0 #99). The branch's and its upstream's commits are read
once; a move still to commit is refused for the detached HEAD in memidx's words. A move made
holds `following` until the index is at it.

A `git` first on PATH detaches HEAD at memidx's first `diff-tree`."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from memidx.config import Config, load_config
from memidx.errors import GitBusy
from memidx.memory.twins import part_twins
from tests.git_shims import put_git_first
from tests.helpers import NotesRepo
from tests.memories import remembered_apart

DETACHING_GIT = """#!/bin/sh
for arg in "$@"; do
  if [ "$arg" = diff-tree ] && [ ! -e "$DETACH_MARK" ]; then
    : > "$DETACH_MARK"
    env -u GIT_INDEX_FILE "$REAL_GIT" -C "$DETACH_IN" switch -q --detach HEAD >/dev/null 2>&1
    break
  fi
done
exec "$REAL_GIT" "$@"
"""


def _detaching(repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The git on PATH detaches HEAD at the first diff-tree; the mark it leaves then."""
    mark = tmp_path / "detached"
    put_git_first(
        monkeypatch, tmp_path / "detaching-bin", DETACHING_GIT, os.environ["PATH"],
        DETACH_MARK=str(mark), DETACH_IN=str(repo.root),
    )  # fmt: skip
    return mark


def test_no_twins_are_found_though_head_was_detached_meanwhile(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remembered_apart(repo, "build-cache", "deploy-keys")
    mark = _detaching(repo, tmp_path, monkeypatch)

    assert part_twins(load_config(repo.root, env={})) == ()

    assert mark.exists()  # HEAD was detached while the twins were looked for
    assert not repo.git("symbolic-ref", "-q", "HEAD", check=False).strip()
    assert repo.git("status", "--porcelain", "--", "notes/") == ""


def test_a_twin_s_move_is_refused_in_memidx_s_words_once_head_was_detached(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remembered_apart(repo, "build-cache", "build-cache")
    main = repo.git("rev-parse", "main").strip()
    mark = _detaching(repo, tmp_path, monkeypatch)

    with pytest.raises(GitBusy) as refused:
        part_twins(load_config(repo.root, env={}))

    assert mark.exists()
    said = refused.value.message
    assert "HEAD is detached now, not on main as when this began" in said, said
    assert repo.git("rev-parse", "main").strip() == main
    assert not (repo.root / "notes" / "build-cache-2.md").exists()
    assert repo.git("status", "--porcelain", "--", "notes/") == ""


def test_a_twin_s_move_is_followed_until_the_index_is_at_it(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The move's commit moved HEAD with no `following` lock held: a person's `git commit`
    whose drift check came before the index followed was refused, "no memidx hook followed"."""
    from memidx.index.following import followed_now
    from memidx.memory import head_sync

    remembered_apart(repo, "build-cache", "build-cache")
    assert repo.memidx("ingest").code == 0  # `following` is held in its state folder
    config = load_config(repo.root, env={})
    real = head_sync.after_commit
    seen: list[bool] = []

    def looked_at(config_: Config, say: Callable[[str], None] | None = None) -> None:
        seen.append(followed_now(config))
        real(config_, say)

    monkeypatch.setattr(head_sync, "after_commit", looked_at)

    moved = part_twins(config)

    assert [move.ref for move in moved] == ["notes/build-cache-2.md"]
    assert seen == [True]
    assert not followed_now(config)
