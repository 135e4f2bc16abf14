"""A forgotten note a merge brings back: a branch made before a rebase still holds the note in
commits the rebase copied, so its merge-base lacks the note and the merge adds it again, into
memory and on to the remote (tests/benchmark/chaos.py, seed 2: the person's side branch, left
from before a `git pull --rebase`, merged after the note was forgotten). The post-merge hook
forgets it again; a note the other branch changed or added after the forget stays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memidx.config import load_config
from memidx.git.repo import GitRepo
from memidx.memory.forgotten_back import brought_back
from tests.machines import Machine, clone, environment, hook_env, make_template


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    env = hook_env(tmp_path / "pre-commit-home")
    return clone(make_template(tmp_path, env), tmp_path / "a", env)


# The commits below set each test up: made without the pre-commit checks (checks=False), which
# no test here looks at; the post-commit and post-merge hooks these tests are about still run.


def forgotten(m: Machine, ref: str) -> None:
    """`memidx forget REF` in-process, in the environment the machine's process would have:
    the forget sets each test up (a process costs ~0.2 s of CPU more); the merges, pulls and
    hooks after it, which the tests check, run as ever."""
    with environment(m.env):
        run = m.memidx("forget", ref)
    assert run.code == 0, run.err


def stale_branch_holding(m: Machine, ref: str) -> None:
    """`old` holds `ref` in a commit main no longer has (main's copy is a rebased one)."""
    m.git("switch", "-q", "-c", "old")
    m.write("README.md", "a change on the old branch\n")
    m.commit("old: readme", checks=False)
    m.git("switch", "-q", "main")
    copied = "the note, its commit copied as a rebase does"  # and with no pre-commit check
    m.git("commit", "-q", "--amend", "--no-verify", "-m", copied)
    assert m.git("merge-base", "main", "old").strip() != m.git("rev-parse", "main").strip()
    assert m.git("ls-tree", "--name-only", "main", "--", ref).strip() == ref


def test_a_forgotten_note_a_stale_branch_brings_back_is_forgotten_again(machine: Machine) -> None:
    m = machine
    ref = m.note("ops/old-key.md", "Old key", "the old key lived in the vault; rotate it")
    m.commit("the note", checks=False)
    stale_branch_holding(m, ref)
    forgotten(m, ref)

    merged = m.run_git("merge", "--no-edit", "old")

    assert merged.returncode == 0, merged.stderr
    assert m.git("ls-tree", "--name-only", "HEAD", "--", ref).strip() == ""  # forgotten again
    assert m.git("log", "-1", "--format=%s").strip() == f"memidx forget: {ref}"
    assert "came back with this merge" in merged.stdout + merged.stderr
    assert m.git("status", "--porcelain", "--", ref) == ""
    assert ref not in {ref for ref, _ in m.search_refs("old key vault")}


def test_every_forgotten_note_one_merge_brings_back_is_forgotten_again(machine: Machine) -> None:
    """The loop rebound the set of forgotten refs its filter read to the first note's `git log`
    line, so a second note the same merge brought back was tested as a substring of it: kept."""
    m = machine
    refs = [
        m.note("ops/old-key.md", "Old key", "the old key lived in the vault; rotate it"),
        m.note("ops/old-token.md", "Old token", "the old token lived in the runner; revoke it"),
    ]
    m.commit("the notes", checks=False)
    stale_branch_holding(m, refs[0])
    for ref in refs:
        forgotten(m, ref)

    merged = m.run_git("merge", "--no-edit", "old")

    assert merged.returncode == 0, merged.stderr
    for ref in refs:
        assert m.git("ls-tree", "--name-only", "HEAD", "--", ref).strip() == "", ref


def test_a_note_the_other_branch_changed_after_the_forget_stays(machine: Machine) -> None:
    m = machine
    ref = m.note("ops/old-key.md", "Old key", "the old key lived in the vault; rotate it")
    m.commit("the note", checks=False)
    m.git("switch", "-q", "-c", "old")
    m.git("switch", "-q", "main")
    forgotten(m, ref)
    m.git("switch", "-q", "old")
    m.git("merge", "-q", "--no-edit", "main")  # old saw the forget, then wrote the note again
    m.note("ops/old-key.md", "Old key", "the old key lived in the vault; rotate it")
    m.commit("remembered again, on purpose", checks=False)
    m.git("switch", "-q", "main")
    m.write("README.md", "main went on\n")  # a true merge: a fast-forward is none to check
    m.commit("main: readme", checks=False)

    assert m.run_git("merge", "--no-edit", "old").returncode == 0

    assert len(m.git("rev-list", "--parents", "-n", "1", "HEAD").split()) == 3
    assert m.git("ls-tree", "--name-only", "HEAD", "--", ref).strip() == ref


def test_a_revert_of_the_forget_on_a_branch_that_never_saw_it_stays(machine: Machine) -> None:
    """`git revert` of the forget on a branch made before it brings the note back on purpose:
    that branch never saw the forget, and its merge forgot the note again."""
    m = machine
    m.git("switch", "-q", "-c", "feature")
    m.git("switch", "-q", "main")
    ref = m.note("ops/old-key.md", "Old key", "the old key lived in the vault; rotate it")
    m.commit("the note", checks=False)
    forgotten(m, ref)
    forget = m.git("rev-parse", "HEAD").strip()
    m.git("switch", "-q", "feature")
    m.git("revert", "--no-edit", forget)  # the note back, with the bytes forget deleted
    m.git("switch", "-q", "main")

    merged = m.run_git("merge", "--no-edit", "feature")

    assert merged.returncode == 0, merged.stderr
    assert "came back" not in merged.stdout + merged.stderr
    assert m.git("ls-tree", "--name-only", "HEAD", "--", ref).strip() == ref


def test_a_merge_with_no_forget_since_the_branches_parted_reads_no_note_history(
    machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The post-merge hook runs on every pull: a `git log` of each note the merge added walked
    the whole history once per note (+1.4 s for a pull of 20 notes on 500 commits)."""
    m = machine
    m.git("switch", "-q", "-c", "colleague")
    for n in range(5):
        m.note(f"new/n{n}.md", f"New {n}", f"a colleague's note number {n}")
    m.commit("a colleague's notes", checks=False)
    m.git("switch", "-q", "main")
    m.write("README.md", "main went on\n")
    m.commit("main: readme", checks=False)
    m.git("merge", "-q", "--no-edit", "colleague")
    calls: list[tuple[str, ...]] = []
    run = GitRepo.run

    def counted(repo: GitRepo, *args: str, **kwargs: Any) -> bytes:
        calls.append(args)
        return run(repo, *args, **kwargs)

    monkeypatch.setattr(GitRepo, "run", counted)

    assert brought_back(load_config(m.root)) == {}

    assert len(calls) <= 2, calls  # the merge's parents, the forgets only this side holds


def test_a_merge_finished_by_git_commit_after_a_conflict_forgets_the_note_again(
    machine: Machine,
) -> None:
    """A merge stopped on a conflict in another file runs no post-merge hook: the person's
    `git commit` makes the merge commit, and its post-commit hook forgets the note again."""
    m = machine
    ref = m.note("ops/old-key.md", "Old key", "the old key lived in the vault; rotate it")
    m.commit("the note", checks=False)
    stale_branch_holding(m, ref)  # old changed README.md
    forgotten(m, ref)
    m.write("README.md", "main's own readme\n")
    m.commit("main: readme", checks=False)
    assert m.run_git("merge", "--no-edit", "old").returncode != 0  # README.md conflicts
    m.write("README.md", "both\n")
    m.git("add", "README.md")

    done = m.run_git("commit", "--no-edit")

    assert done.returncode == 0, done.stderr
    assert "came back with this merge" in done.stdout + done.stderr
    assert m.git("ls-tree", "--name-only", "HEAD", "--", ref).strip() == ""
    assert m.git("log", "-1", "--format=%s").strip() == f"memidx forget: {ref}"
    assert m.git("status", "--porcelain") == ""


def test_a_forget_behind_a_merge_of_it_is_found(machine: Machine) -> None:
    """The forget reached this branch through a merge's second parent (a `git pull` of a
    branch that forgot it into one that never held it): git log's default simplification
    follows the first parent, which never held the note, and found no forget (seed 2)."""
    m = machine
    ref = m.note("ops/old-key.md", "Old key", "the old key lived in the vault; rotate it")
    m.commit("the note", checks=False)
    stale_branch_holding(m, ref)
    forgotten(m, ref)
    m.git("switch", "-q", "-c", "fresh", m.git("merge-base", "main", "old").strip())
    m.write("CHANGES.md", "a change that never held the note\n")
    m.commit("fresh: changes", checks=False)
    m.git("merge", "-q", "--no-edit", "main")  # the forget, behind the merge's second parent

    merged_forgotten_again(m, ref)


def test_a_restore_without_revert_on_a_branch_that_never_saw_the_forget_stays(
    machine: Machine,
) -> None:
    """`git checkout <forget>^ -- <note>` and a commit, on a branch made before the note: the
    note back on purpose, the very bytes forget deleted, and the branch never saw the forget
    (a stale copy's look): its merge forgot the note again. The restore's commit was written
    after the forget (its author date); a stale copy's, even rebased, before it."""
    m = machine
    m.git("switch", "-q", "-c", "feature")
    m.git("switch", "-q", "main")
    ref = m.note("ops/old-key.md", "Old key", "the old key lived in the vault; rotate it")
    m.commit("the note", checks=False)
    forgotten(m, ref)
    forget = m.git("rev-parse", "HEAD").strip()
    later = int(m.git("log", "-1", "--format=%ct", forget)) + 60  # no second shared with it
    m.git("switch", "-q", "feature")
    m.git("checkout", f"{forget}^", "--", ref)
    m.git("commit", "-q", f"--date=@{later} +0000", "-m", "the old key note back, on purpose")
    m.git("switch", "-q", "main")
    m.write("README.md", "main went on\n")  # a true merge
    m.commit("main: readme", checks=False)

    merged = m.run_git("merge", "--no-edit", "feature")

    assert merged.returncode == 0, merged.stderr
    assert "came back" not in merged.stdout + merged.stderr
    assert m.git("ls-tree", "--name-only", "HEAD", "--", ref).strip() == ref
    assert m.git("status", "--porcelain") == ""


def test_a_merge_that_kept_the_forget_hides_it_from_no_later_merge(machine: Machine) -> None:
    """After the forget, a merge of a branch that still held the note (from before the forget,
    unchanged there) kept it deleted; `git log --full-history` names such a merge as the
    path's newest change, so the stale branch merged next brought the note back for good
    (chaos seed 2: the remote held a forgotten note)."""
    m = machine
    ref = m.note("ops/old-key.md", "Old key", "the old key lived in the vault; rotate it")
    m.commit("the note", checks=False)
    stale_branch_holding(m, ref)
    m.git("switch", "-q", "-c", "other")  # holds the note as main does, unchanged
    m.write("CHANGES.md", "the other branch's change\n")
    m.commit("other: changes", checks=False)
    m.git("switch", "-q", "main")
    forgotten(m, ref)
    assert m.run_git("merge", "--no-edit", "other").returncode == 0
    assert m.git("ls-tree", "--name-only", "HEAD", "--", ref).strip() == ""  # kept deleted

    merged_forgotten_again(m, ref)


def test_a_forget_a_pull_merged_into_a_branch_holding_the_note_is_found(
    machine: Machine,
) -> None:
    """A `git pull` (a merge) of the forget into a branch that still held the note deletes it
    in the merge commit: --full-history shows that merge first, not memidx's forget, and the
    note the stale branch brought back later was kept."""
    m = machine
    ref = m.note("ops/old-key.md", "Old key", "the old key lived in the vault; rotate it")
    m.commit("the note", checks=False)
    stale_branch_holding(m, ref)
    m.git("switch", "-q", "-c", "work")
    m.write("CHANGES.md", "the person's own work, the note still here\n")
    m.commit("work: changes", checks=False)
    m.git("switch", "-q", "main")
    forgotten(m, ref)
    m.git("switch", "-q", "work")
    m.git("merge", "-q", "--no-edit", "main")  # the forget, through the merge: the note gone
    assert m.git("ls-tree", "--name-only", "HEAD", "--", ref).strip() == ""

    merged_forgotten_again(m, ref)


def test_a_forget_then_a_pull_of_a_branch_still_holding_the_note_is_found(
    machine: Machine,
) -> None:
    """Chaos seed 1 (merge 28cdf5b): main forgot the note, then pulled (a merge) a colleague's
    branch that still held it and saw no forget, and the two branches merged each other; the
    pull's merge took the note out on its second parent's side. --full-history showed that
    merge first, not memidx's forget, and the person's stale pre-rebase branch merged last
    brought the note back for good."""
    m = machine
    ref = m.note("ops/old-key.md", "Old key", "the old key lived in the vault; rotate it")
    m.commit("the note", checks=False)
    stale_branch_holding(m, ref)
    m.git("switch", "-q", "-c", "colleague")
    m.write("CHANGES.md", "the colleague's work, the note still here\n")
    m.commit("colleague: changes", checks=False)
    m.git("switch", "-q", "main")
    forgotten(m, ref)
    m.git("merge", "-q", "--no-edit", "colleague")  # main's pull: the note out of their side
    m.git("switch", "-q", "colleague")
    m.git("merge", "-q", "--no-edit", "main")  # and theirs of main: each merged the other
    m.write("CHANGES.md", "the colleague went on\n")
    m.commit("colleague: more", checks=False)
    m.git("switch", "-q", "main")
    m.git("merge", "-q", "--no-edit", "colleague")
    assert m.git("ls-tree", "--name-only", "HEAD", "--", ref).strip() == ""
    last = m.git("log", "-1", "--full-history", "--format=%s", "--", ref).strip()
    assert last.startswith("Merge branch 'colleague'")  # the shape: a merge newest, no forget

    merged_forgotten_again(m, ref)


def test_a_forget_kept_by_a_conflict_resolved_by_deleting_the_note_is_found(
    machine: Machine,
) -> None:
    """A colleague changed the note before the forget reached them; the person's pull stopped
    on the change against the forget and they deleted it. That merge, not memidx's forget, is
    the path's newest change in any simplification of the history (its other parent's change
    is no ancestor of the forget): the stale branch merged next brought the note back for good."""
    m = machine
    ref = m.note("ops/old-key.md", "Old key", "the old key lived in the vault; rotate it")
    m.commit("the note", checks=False)
    stale_branch_holding(m, ref)
    m.git("switch", "-q", "-c", "colleague")
    m.note("ops/old-key.md", "Old key", "the old key lived in the vault; rotate it today")
    m.commit("colleague: the note changed", checks=False)
    m.git("switch", "-q", "main")
    forgotten(m, ref)
    assert m.run_git("merge", "--no-edit", "colleague").returncode != 0  # modify/delete
    m.git("rm", "-q", ref)
    assert m.run_git("commit", "--no-edit").returncode == 0
    last = m.git("log", "-1", "--simplify-merges", "--format=%s", "--", ref).strip()
    assert last.startswith("Merge branch 'colleague'")  # the shape: a merge newest, no forget

    merged_forgotten_again(m, ref)


def merged_forgotten_again(m: Machine, ref: str) -> None:
    """Merge the stale branch `old`: git's merge succeeds, and the post-merge hook forgets
    `ref` again and says so."""
    merged = m.run_git("merge", "--no-edit", "old")
    assert merged.returncode == 0, merged.stderr
    assert m.git("ls-tree", "--name-only", "HEAD", "--", ref).strip() == ""  # forgotten again
    assert "came back with this merge" in merged.stdout + merged.stderr
