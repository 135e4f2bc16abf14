"""A path commit_paths commits as deleted (forget's note, share's twin move's old name) leaves
the work tree with HEAD's move, under memidx's `.git/index.lock`, also when the move takes the
fast way (memidx.git.index_swap: the index prepared before the lock, renamed under it). That
way only wrote the new files: the forgotten note stayed in the work tree, untracked, until
forget deleted it a moment later (leave_work_tree); a memidx killed in between left it there
for the person's next `git add -A` to commit again, and a person's `git add -A` in that moment
staged it back."""

from __future__ import annotations

import os

import pytest

from memidx.config import load_config
from memidx.git import index_swap
from memidx.git.commit import commit_paths
from tests.helpers import NotesRepo


def _never(*_: object) -> bool:
    return False


@pytest.mark.skipif(os.name != "posix", reason="the move's shell runs on POSIX")
@pytest.mark.parametrize("fast", [True, False], ids=["swap", "follow"])
def test_a_path_committed_as_deleted_leaves_the_work_tree_with_the_move(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch, fast: bool
) -> None:
    """The follow's shell (the index changed since its copy) writes the new name from the
    index (checkout-index) and deletes the old ones while they hold the bytes judged."""
    if not fast:
        monkeypatch.setattr(index_swap, "usable", _never)
    ref = repo.note("gone.md", "Gone", "a note to forget")
    moved = repo.note("moved-from.md", "Moved", "a note renamed by a twin move")
    repo.commit("notes")
    config = load_config(repo.root)
    data, forgotten = (repo.root / moved).read_bytes(), (repo.root / ref).read_bytes()
    target = "notes/moved-to.md"
    commit_paths(
        config,
        [ref, moved, target],
        "forget and move",
        written={target: data},
        removed={ref: forgotten, moved: data},  # the bytes judged: deleted while still these
    )
    assert not (repo.root / ref).exists()  # not left for forget to delete later
    assert not (repo.root / moved).exists()
    assert (repo.root / target).read_bytes() == data
    assert repo.git("status", "--porcelain", "--untracked-files=all") == ""
