"""What a person with two machines meets, tested by a tester who did not write sync: turns filed
on both (one agent session shared by both, and sessions of their own) and moved with plain git,
`memidx forget` while a pull waits on a conflict, `git reset --hard` back and forth past a
haystack commit, a branch without notes/, a turn forgotten on the other machine, and a turn
filed between `git add -A` and `git commit` through a reset, a stash and an autostash. No memidx
command is run by hand between git operations unless a person would run it; after each step the
index is what a rebuild from nothing gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_sync_hard import found, push, rebuilt_the_same
from tests.machines import Machine, clone, hook_env, make_template


@pytest.fixture
def machines(tmp_path: Path) -> tuple[Machine, Machine]:
    env = hook_env(tmp_path / "pre-commit-home")
    remote = make_template(tmp_path, env)
    return clone(remote, tmp_path / "a", env), clone(remote, tmp_path / "b", env)


def filed(machine: Machine, text: str, session: str) -> dict[str, object]:
    turn = json.dumps({"text": text, "session": session, "agent": "claude"})
    run = machine.memidx_here("file-turn", "--json", stdin=turn)
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


def test_turns_filed_on_both_machines_and_moved_by_plain_git_are_found_once_on_each(
    machines: tuple[Machine, Machine],
) -> None:
    """One agent session ("s-42") files on both machines, each has a session of its own too;
    the segments are committed by `git add -A && git commit`, merged by `git pull` and pushed
    by `git push`. Every turn is found once on both, a turn filed after a plain commit goes to
    a new segment (the committed one never changes), and the same words filed again in the
    shared session on the machine that pulled them are the pulled record, not a second one."""
    a, b = machines
    first = filed(a, "aardvark turn one on machine a", "s-42")
    filed(a, "anteater turn in a's own session", "a-1")
    filed(b, "buffalo turn on machine b", "s-42")
    filed(b, "bison turn in b's own session", "b-1")
    committed_all(a, "a's turns")
    push(a)
    filed(a, "axolotl turn after a's commit", "s-42")
    assert a.git("status", "--porcelain", "--untracked-files=no") == ""  # nothing appended
    committed_all(b, "b's turns")
    b.git("pull", "-q", "--no-rebase", "--no-edit")
    push(b)
    a.git("pull", "-q", "--no-rebase", "--no-edit")
    committed_all(a, "a's later turn")
    push(a)
    b.git("pull", "-q", "--ff-only")

    words = ["aardvark", "anteater", "buffalo", "bison", "axolotl"]
    for machine in (a, b):
        once_each(machine, words)
        assert found(machine, "turn") == found(a, "turn")
        rebuilt_the_same(machine)
    again = filed(b, "aardvark turn one on machine a", "s-42")
    assert again["duplicate"] is True and again["id"] == first["id"], again
    once_each(b, ["aardvark"])


def conflict_waits(a: Machine, b: Machine) -> None:
    """notes/shared.md edited on both machines from one base; A pushed; B's `git pull` stopped
    on the conflict (notes/clean.md, A's too, merged cleanly and staged)."""
    a.note("shared.md", "Shared", "base words")
    committed_all(a, "base")
    push(a)
    b.git("pull", "-q", "--ff-only")
    a.note("shared.md", "Shared", "alpha words from machine a")
    a.note("clean.md", "Clean", "cheetah merged cleanly")
    committed_all(a, "a edits")
    push(a)
    b.note("shared.md", "Shared", "bravo words from machine b")
    committed_all(b, "b edits")
    pulled = b.run_git("pull", "--no-rebase", "--no-edit")
    assert pulled.returncode != 0 and "CONFLICT" in pulled.stdout + pulled.stderr


def test_forget_while_a_pull_waits_on_a_conflict_leaves_the_merge_to_the_person(
    machines: tuple[Machine, Machine],
) -> None:
    """While a conflict waits, the person forgets a note the merge does not touch, then the
    conflicted note itself (it should go). The first leaves the conflict's stages and markers
    as git left them; the second resolves it as deleted, never indexing A's side or the
    markers; the clean part of the merge stays staged, and `git commit` finishes the merge
    with neither note, on both machines."""
    a, b = machines
    a.note("old.md", "Old", "heron words to forget")
    committed_all(a, "old")
    push(a)
    conflict_waits(a, b)
    stages = b.git("ls-files", "-u")

    run = b.memidx_process("forget", "notes/old.md")

    assert run.code == 0, run.err
    assert found(b, "heron") == []
    assert b.git("ls-files", "-u") == stages
    assert "<<<<<<<" in (b.root / "notes" / "shared.md").read_text()
    run = b.memidx_process("forget", "notes/shared.md")
    assert run.code == 0, run.err
    assert found(b, "bravo") == [] and found(b, "alpha") == []
    assert "notes/clean.md" in b.git("diff", "--cached", "--name-only")
    status = b.memidx_process("status")
    assert status.code == 0 and "Traceback" not in status.err, status.out + status.err
    b.git("commit", "-q", "--no-edit")
    assert len(b.git("log", "-1", "--format=%P").split()) == 2  # the merge, finished
    tree = b.git("ls-tree", "-r", "--name-only", "HEAD")
    assert "notes/shared.md" not in tree and "notes/old.md" not in tree
    assert found(b, "alpha") == [] and found(b, "cheetah") == ["notes/clean.md"]
    rebuilt_the_same(b)
    push(b)
    a.git("pull", "-q", "--ff-only")
    assert found(a, "alpha") == [] and found(a, "heron") == []
    assert found(a, "cheetah") == ["notes/clean.md"]
    rebuilt_the_same(a)


def test_reset_hard_past_a_haystack_commit_and_back_loses_and_doubles_no_turn(
    machines: tuple[Machine, Machine],
) -> None:
    """Turns committed by `memidx haystack commit`, more filed after; `git reset --hard
    HEAD~1` takes the committed segment off the disk, a turn filed there goes to a segment of
    its own, and `git reset --hard` forward brings the first back: every turn found once."""
    a, _ = machines
    filed(a, "capybara committed turn", "s")
    assert a.memidx_here("haystack", "commit").code == 0
    filed(a, "dromedary loose turn", "s")
    committed = a.git("rev-parse", "HEAD").strip()

    a.git("reset", "-q", "--hard", "HEAD~1")

    assert found(a, "capybara") == []
    assert len(found(a, "dromedary")) == 1
    filed(a, "echidna turn filed on the old commit", "s")
    rebuilt_the_same(a)
    a.git("reset", "-q", "--hard", committed)
    once_each(a, ["capybara", "dromedary", "echidna"])
    rebuilt_the_same(a)


def test_a_branch_without_notes_and_back(machines: tuple[Machine, Machine]) -> None:
    """A branch where the notes folder is deleted (code only): nothing of HEAD's notes is
    answered there, the turns not yet committed still are, and switching back brings every
    note back, the index in step."""
    a, _ = machines
    a.note("kept.md", "Kept", "jackal note on main")
    committed_all(a, "main note")
    filed(a, "kestrel loose turn", "s")
    a.git("switch", "-q", "-c", "code-only")
    a.git("rm", "-r", "-q", "--cached", "notes")
    a.git("commit", "-q", "-m", "no notes here")
    # the untracked segments stay in the work tree; the committed notes leave it with git
    a.git("clean", "-q", "-f", "--", "notes/kept.md", "notes/welcome.md")
    assert found(a, "jackal") == []
    assert len(found(a, "kestrel")) == 1
    status = a.memidx_process("status")
    assert status.code == 0, status.out + status.err
    a.git("switch", "-q", "main")
    assert found(a, "jackal") == ["notes/kept.md"]
    assert len(found(a, "kestrel")) == 1
    rebuilt_the_same(a)


def test_a_turn_forgotten_on_the_other_machine_is_gone_after_a_plain_pull(
    machines: tuple[Machine, Machine],
) -> None:
    """B files a turn and shares it; A pulls, forgets it and shares; B's plain `git pull`
    drops it from B's search, `show` says it was forgotten, a rebuild agrees, and the same
    words filed again in that session are a new record, found once."""
    a, b = machines
    gone = filed(b, "giraffe turn to forget", "s-42")
    filed(b, "giraffe neighbour that stays", "s-42")
    assert b.memidx_here("share").code == 0
    a.git("pull", "-q", "--ff-only")
    assert len(found(a, "giraffe")) == 2
    assert a.memidx_here("forget", str(gone["id"])).code == 0
    assert a.memidx_here("share").code == 0

    b.git("pull", "-q", "--no-rebase", "--no-edit")

    assert len(found(b, "giraffe")) == 1
    shown = b.memidx_process("show", str(gone["id"]))
    assert shown.code == 1 and "forgotten" in shown.err, shown.err
    again = filed(b, "giraffe turn to forget", "s-42")
    assert again["duplicate"] is False and again["id"] != gone["id"], again
    assert len(found(b, "giraffe")) == 2
    rebuilt_the_same(b)


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
    assert a.memidx_here("sync").code == 0  # as the next hook does

    once_each(a, ["capybara", "dromedary", "echidna"])
    rebuilt_the_same(a)  # its status too
    assert a.memidx_here("share").code == 0
    assert a.git("status", "--porcelain") == ""
    b.git("pull", "-q", "--ff-only")
    once_each(b, ["capybara", "dromedary", "echidna"])


def test_a_segment_end_a_stash_or_autostash_took_is_left_for_git_to_bring_back(
    machines: tuple[Machine, Machine],
) -> None:
    """`git stash`, and the autostash of `git pull --rebase --autostash`, keep the segment's
    uncommitted end: memidx writes nothing back meanwhile (the hooks of the rebase run while
    git keeps the autostash), so `git stash pop` and the autostash apply, and each turn is
    found once after them."""
    a, b = machines
    filed_between_add_and_commit(a)
    a.git("stash", "-q")
    assert a.memidx_here("sync").code == 0
    assert a.git("status", "--porcelain", "--untracked-files=no") == ""
    a.git("stash", "pop", "-q")
    b.note("from-b.md", "From B", "buffalo note")
    committed_all(b, "b")
    push(b)

    pulled = a.run_git("pull", "--rebase", "--autostash")

    assert pulled.returncode == 0 and "conflict" not in pulled.stdout + pulled.stderr, pulled
    assert a.git("stash", "list") == ""
    # git applies the autostash after the rebase's last other hook: post-index-change syncs
    once_each(a, ["capybara", "dromedary", "echidna", "buffalo"])
    rebuilt_the_same(a)
