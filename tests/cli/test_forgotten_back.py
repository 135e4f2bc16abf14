"""A forgotten note a merge brings back: a branch made before a rebase still holds the note in
commits the rebase copied, so its merge-base lacks the note and the merge adds it again, into
memory and on to the remote (tests/benchmark/chaos.py, seed 2: the person's side branch, left
from before a `git pull --rebase`, merged after the note was forgotten). The post-merge hook
forgets it again; a note the other branch changed or added after the forget stays."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.machines import Machine, clone, hook_env, make_template


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    env = hook_env(tmp_path / "pre-commit-home")
    return clone(make_template(tmp_path, env), tmp_path / "a", env)


def stale_branch_holding(m: Machine, ref: str) -> None:
    """`old` holds `ref` in a commit main no longer has (main's copy is a rebased one)."""
    m.git("switch", "-q", "-c", "old")
    m.write("README.md", "a change on the old branch\n")
    m.commit("old: readme")
    m.git("switch", "-q", "main")
    m.git("commit", "-q", "--amend", "-m", "the note, its commit copied as a rebase does")
    assert m.git("merge-base", "main", "old").strip() != m.git("rev-parse", "main").strip()
    assert m.git("ls-tree", "--name-only", "main", "--", ref).strip() == ref


def test_a_forgotten_note_a_stale_branch_brings_back_is_forgotten_again(machine: Machine) -> None:
    m = machine
    ref = m.note("ops/old-key.md", "Old key", "the old key lived in the vault; rotate it")
    m.commit("the note")
    stale_branch_holding(m, ref)
    assert m.memidx_process("forget", ref).code == 0

    merged = m.run_git("merge", "--no-edit", "old")

    assert merged.returncode == 0, merged.stderr
    assert m.git("ls-tree", "--name-only", "HEAD", "--", ref).strip() == ""  # forgotten again
    assert m.git("log", "-1", "--format=%s").strip() == f"memidx forget: {ref}"
    assert "came back with this merge" in merged.stdout + merged.stderr
    assert m.git("status", "--porcelain", "--", ref) == ""
    assert ref not in {ref for ref, _ in m.search_refs("old key vault")}


def test_a_note_the_other_branch_changed_after_the_forget_stays(machine: Machine) -> None:
    m = machine
    ref = m.note("ops/old-key.md", "Old key", "the old key lived in the vault; rotate it")
    m.commit("the note")
    m.git("switch", "-q", "-c", "old")
    m.git("switch", "-q", "main")
    assert m.memidx_process("forget", ref).code == 0
    m.git("switch", "-q", "old")
    m.git("merge", "-q", "--no-edit", "main")  # old saw the forget, then wrote the note again
    m.note("ops/old-key.md", "Old key", "the old key lived in the vault; rotate it")
    m.commit("remembered again, on purpose")
    m.git("switch", "-q", "main")

    assert m.run_git("merge", "--no-edit", "old").returncode == 0

    assert m.git("ls-tree", "--name-only", "HEAD", "--", ref).strip() == ref


def test_a_forget_behind_a_merge_of_it_is_found(machine: Machine) -> None:
    """The forget reached this branch through a merge's second parent (a `git pull` of a
    branch that forgot it into one that never held it): git log's default simplification
    follows the first parent, which never held the note, and found no forget (seed 2)."""
    m = machine
    ref = m.note("ops/old-key.md", "Old key", "the old key lived in the vault; rotate it")
    m.commit("the note")
    stale_branch_holding(m, ref)
    assert m.memidx_process("forget", ref).code == 0
    m.git("switch", "-q", "-c", "fresh", m.git("merge-base", "main", "old").strip())
    m.write("CHANGES.md", "a change that never held the note\n")
    m.commit("fresh: changes")
    m.git("merge", "-q", "--no-edit", "main")  # the forget, behind the merge's second parent

    merged = m.run_git("merge", "--no-edit", "old")

    assert merged.returncode == 0, merged.stderr
    assert m.git("ls-tree", "--name-only", "HEAD", "--", ref).strip() == ""  # forgotten again
    assert "came back with this merge" in merged.stdout + merged.stderr
