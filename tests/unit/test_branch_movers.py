"""Which `git branch` command lines a side commit waits for: those that may delete, move,
copy over or force a branch; never a listing (memidx/git/branch_movers.py)."""

from __future__ import annotations

import pytest

from memidx.git.branch_movers import may_move


@pytest.mark.parametrize(
    ("argv", "moves"),
    [
        (["git", "branch"], False),
        (["git", "branch", "--show-current"], False),
        (["git", "-C", "x", "branch", "-vv", "--list", "--color=auto"], False),
        (["git", "branch", "--format=%(refname)", "--contains", "HEAD"], False),
        (["git", "branch", "-d", "side"], True),
        (["git", "branch", "-qD", "side"], True),
        (["git", "-c", "a.b=c", "branch", "-M", "side", "other"], True),
        (["git", "branch", "--del", "side"], True),
        (["git", "branch", "--move=x"], True),
        (["git", "branch", "-f", "side", "HEAD"], True),
        (["git", "-C", "branch", "branch", "--force", "side"], True),
    ],
)
def test_which_git_branch_may_move_or_delete(argv: list[str], moves: bool) -> None:
    assert may_move(argv[1:]) is moves
