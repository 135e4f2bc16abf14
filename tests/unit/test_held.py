"""The commands purge prints for the places that still hold forgotten bytes: shell command
lines whose names and paths are quoted, so one pasted as it is runs on that place alone."""

from __future__ import annotations

import pytest

from memidx.git.tips import BRANCH, OTHER, STASH, TAG, WORK_TREE, Tip
from memidx.haystack.held import held, in_order


@pytest.mark.parametrize(
    ("tip", "run"),
    [
        (Tip("refs/heads/backup", "c", BRANCH), "memidx haystack purge --branch backup"),
        (Tip("refs/heads/a;rm", "c", BRANCH), "memidx haystack purge --branch 'a;rm'"),
        (Tip("refs/tags/v1$(x)", "c", TAG), "git tag -d 'v1$(x)'"),
        (Tip("refs/heads/-x", "c", BRANCH), "memidx haystack purge --branch refs/heads/-x"),
        (
            Tip("refs/heads/refs/heads/main", "c", BRANCH),
            "memidx haystack purge --branch refs/heads/refs/heads/main",
        ),
        (Tip("refs/tags/-t", "c", TAG), "git tag -d -- -t"),
        (Tip("refs/notes/commits", "c", OTHER), "git update-ref -d refs/notes/commits"),
        (Tip("refs/keep/$(rm)", "c", OTHER), "git update-ref -d 'refs/keep/$(rm)'"),
        (Tip("stash@{2}", "c", STASH), "git stash drop stash@{2}"),
        (
            Tip("refs/heads/wip", "c", BRANCH, "/tmp/my tree"),
            "git worktree remove '/tmp/my tree' && memidx haystack purge --branch wip",
        ),
        (Tip("HEAD of /tmp/t", "c", WORK_TREE, "/tmp/t"), "git worktree remove /tmp/t"),
        (Tip("refs/heads/main", "c", BRANCH, "/here", here=True), "memidx haystack purge"),
    ],
)
def test_each_place_gets_a_quoted_command(tip: Tip, run: str) -> None:
    assert held(tip).run == run


def test_stash_entries_come_last_highest_first_so_the_drops_run_in_order() -> None:
    tips = [Tip(f"stash@{{{n}}}", "c", STASH) for n in range(3)]
    tips.insert(1, Tip("refs/tags/v1", "c", TAG))

    assert [h.ref for h in in_order(tips)] == [
        "refs/tags/v1",
        "stash@{2}",
        "stash@{1}",
        "stash@{0}",
    ]
