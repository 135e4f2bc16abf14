"""A pull whose autostash holds a staged segment stops on a conflict in a note; a turn is filed
and the index synced while it waits (an agent at work); then the person ends it: `git rebase
--abort` or `--continue`, `git merge --abort` or a `git commit` of the merge. The sync did
not write the segment back from its copy (the autostash holds it): the apply at the end
brings it back without a conflict, and every turn is found once."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_sync_hard import found, push, rebuilt_the_same
from tests.cli.test_two_machines import filed
from tests.machines import Machine, clone, hook_env, make_template


@pytest.fixture
def machines(tmp_path: Path) -> tuple[Machine, Machine]:
    """A bare remote and two clones with memidx's hooks."""
    env = hook_env(tmp_path / "pre-commit-home")
    remote = make_template(tmp_path, env)
    return clone(remote, tmp_path / "a", env), clone(remote, tmp_path / "b", env)


def _conflicting(a: Machine, b: Machine) -> None:
    """a's commit and b's pushed one change the same note (set-up commits and pushes: without
    the pre-commit checks and the pre-push scan, which are not what is tested here)."""
    a.note("shared.md", "Shared", "original body")
    a.commit("shared", checks=False)
    push(a)
    b.git("pull", "-q", "--no-rebase")
    b.note("shared.md", "Shared", "the body b wrote")
    b.commit("b's change", checks=False)
    push(b)
    a.note("shared.md", "Shared", "the body a wrote")
    a.commit("a's change", checks=False)


ENDS = {
    "rebase-abort": (["pull", "--rebase", "--autostash"], ["rebase", "--abort"]),
    "rebase-continue": (["pull", "--rebase", "--autostash"], ["rebase", "--continue"]),
    "merge-abort": (["pull", "--no-rebase", "--autostash"], ["merge", "--abort"]),
    "merge-commit": (["pull", "--no-rebase", "--autostash"], ["commit", "--no-edit"]),
}


@pytest.mark.parametrize("end", sorted(ENDS))
def test_a_turn_filed_while_an_autostash_pull_waits_on_a_conflict(
    machines: tuple[Machine, Machine], end: str
) -> None:
    a, b = machines
    _conflicting(a, b)
    filed(a, "capybara turn before git add", "s")
    a.git("add", "-A")
    filed(a, "dromedary turn after git add", "s")
    pull, finish = ENDS[end]
    stopped = a.run_git(*pull)
    assert stopped.returncode != 0 and "conflict" in (stopped.stdout + stopped.stderr).lower()
    filed(a, "fennec turn while the pull waits", "s")
    synced = a.memidx_process("sync")
    assert synced.code == 0 and "Traceback" not in synced.err, synced.err
    if not finish[-1].endswith("abort"):
        a.note("shared.md", "Shared", "the body both agreed on")
        a.git("add", "notes/shared.md")

    ended = a.run_git("-c", "core.editor=true", *finish)

    said = ended.stdout + ended.stderr
    assert ended.returncode == 0 and "Applied autostash" in said, said
    assert a.git("stash", "list") == ""
    a.memidx_here("sync")
    for word in ("capybara", "dromedary", "fennec"):
        assert len(found(a, word)) == 1, (word, found(a, word))
    rebuilt_the_same(a)
