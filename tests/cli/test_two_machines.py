"""What a person with two machines meets, tested by a tester who did not write sync: turns filed
on both (one agent session shared by both, and sessions of their own) and moved with plain git,
a note edited on one machine and forgotten on the other, `memidx forget` while a pull waits on a
conflict, a rebasing pull over unpushed remembers, `git reset --hard` back and forth past a
haystack commit, a branch without notes/, and a turn forgotten on the other machine. No memidx
command is run by hand between git operations unless a person would run it; after each step the
index is what a rebuild from nothing gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_sync_hard import found, rebuilt_the_same
from tests.machines import Machine, clone, hook_env, make_template


@pytest.fixture
def machines(tmp_path: Path) -> tuple[Machine, Machine]:
    env = hook_env(tmp_path / "pre-commit-home")
    remote = make_template(tmp_path, env)
    return clone(remote, tmp_path / "a", env), clone(remote, tmp_path / "b", env)


def filed(machine: Machine, text: str, session: str) -> dict[str, object]:
    turn = json.dumps({"text": text, "session": session, "agent": "claude"})
    run = machine.memidx_process("file-turn", "--json", stdin=turn)
    assert run.code == 0, run.err
    answer: dict[str, object] = run.json()
    return answer


def committed_all(machine: Machine, message: str) -> None:
    """`git add -A && git commit` with the hooks: how a person commits the haystack by hand."""
    machine.git("add", "-A")
    machine.git("commit", "-q", "-m", message)


def once_each(machine: Machine, words: list[str]) -> None:
    for word in words:
        assert len(found(machine, word)) == 1, (machine.root.name, word, found(machine, word))


def filed_between_add_and_commit(machine: Machine) -> None:
    """`git add -A` stages the open segment; a turn filed then is appended to it; `git
    commit` holds the staged bytes only: the later turn is in the work tree, not in HEAD."""
    filed(machine, "capybara turn before git add", "s")
    machine.git("add", "-A")
    filed(machine, "dromedary turn between add and commit", "s")
    machine.git("commit", "-q", "-m", "turns")
    filed(machine, "echidna turn after the commit", "s")


def test_a_turn_filed_between_git_add_and_git_commit_survives_a_reset_hard(
    machines: tuple[Machine, Machine],
) -> None:
    """The turn filed between `git add -A` and `git commit` was acknowledged, and no commit
    holds it: `git reset --hard` (or `git checkout -- notes`) takes it off the disk with the
    rest of the segment's uncommitted bytes. The next hook writes it back, and it reaches
    the other machine."""
    a, b = machines
    filed_between_add_and_commit(a)

    a.git("reset", "-q", "--hard")  # HEAD stays: no hook runs
    assert a.memidx_process("sync").code == 0  # as the next hook does

    once_each(a, ["capybara", "dromedary", "echidna"])
    rebuilt_the_same(a)  # its status too
    assert a.memidx_process("share").code == 0
    assert a.git("status", "--porcelain") == ""
    b.git("pull", "-q", "--ff-only")
    once_each(b, ["capybara", "dromedary", "echidna"])


def test_a_segment_git_stash_took_the_end_of_is_left_for_stash_pop(
    machines: tuple[Machine, Machine],
) -> None:
    """`git stash` keeps the segment's uncommitted end in the stash: memidx writes nothing
    back meanwhile, so `git stash pop` applies, and the turn is found once after it."""
    a, _ = machines
    filed_between_add_and_commit(a)
    a.git("stash", "-q")
    assert a.memidx_process("sync").code == 0
    assert a.git("status", "--porcelain", "--untracked-files=no") == ""

    a.git("stash", "pop", "-q")

    assert a.memidx_process("sync").code == 0
    once_each(a, ["capybara", "dromedary", "echidna"])
    rebuilt_the_same(a)
