"""A forgotten note a merge brings back (memidx/memory/forgotten_back.py): the person's own
resolution of a conflict that keeps the note is never forgotten again, and a note renamed
before its forget is found at the name the stale branch brought back."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_forgotten_back import stale_branch_holding
from tests.machines import Machine, clone, hook_env, make_template


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    env = hook_env(tmp_path / "pre-commit-home")
    return clone(make_template(tmp_path, env), tmp_path / "a", env)


@pytest.mark.parametrize("kept", ["as forgotten", "as changed"])
def test_a_conflict_resolved_by_keeping_the_note_keeps_it(machine: Machine, kept: str) -> None:
    """A colleague changed the note before the forget reached them; the person's merge stopped
    on the change against the forget, and they kept the note, as it was before the forget
    (`git checkout <forget>^ -- <note>`): the merge's post-commit hook forgot it again, against
    the resolution they had just made."""
    m = machine
    ref = m.note("ops/old-key.md", "Old key", "the old key lived in the vault; rotate it")
    m.commit("the note", checks=False)
    m.git("switch", "-q", "-c", "colleague")
    m.note("ops/old-key.md", "Old key", "the old key lived in the vault; rotate it today")
    m.commit("colleague: the note changed", checks=False)
    m.git("switch", "-q", "main")
    assert m.memidx_process("forget", ref).code == 0
    forget = m.git("rev-parse", "HEAD").strip()
    assert m.run_git("merge", "--no-edit", "colleague").returncode != 0  # modify/delete
    if kept == "as forgotten":
        m.git("checkout", f"{forget}^", "--", ref)
    else:
        m.git("add", ref)

    done = m.run_git("commit", "--no-edit")

    assert done.returncode == 0, done.stderr
    assert "came back" not in done.stdout + done.stderr
    assert m.git("ls-tree", "--name-only", "HEAD", "--", ref).strip() == ref
    assert m.git("log", "-1", "--format=%s").strip().startswith("Merge branch 'colleague'")


def test_a_note_renamed_then_forgotten_is_forgotten_again_at_its_old_name(
    machine: Machine,
) -> None:
    """`git mv` of the note, then its forget: the stale branch merged next brought it back at
    its old name, and no forget named that path, so it stayed in memory and went to the
    remote."""
    m = machine
    ref = m.note("ops/old-key.md", "Old key", "the old key lived in the vault; rotate it")
    m.commit("the note", checks=False)
    stale_branch_holding(m, ref)
    m.git("mv", ref, "notes/ops/key.md")
    m.commit("the note renamed", checks=False)
    assert m.memidx_process("forget", "notes/ops/key.md").code == 0

    merged = m.run_git("merge", "--no-edit", "old")

    assert merged.returncode == 0, merged.stderr
    assert f"{ref}, forgotten in" in merged.stdout + merged.stderr
    assert m.git("ls-tree", "-r", "--name-only", "HEAD", "--", "notes/ops").strip() == ""
    assert m.git("status", "--porcelain") == ""


def test_a_note_of_the_same_bytes_at_a_path_never_held_here_stays(machine: Machine) -> None:
    """A colleague's own note, written before the forget at a name this branch never held,
    byte for byte the forgotten one (a shared template): not the forgotten note come back."""
    m = machine
    m.git("switch", "-q", "-c", "colleague")
    copy = m.note("team/checklist.md", "Checklist", "check the runbook before a deploy")
    m.commit("colleague: a checklist", checks=False)
    m.git("switch", "-q", "main")
    ref = m.note("ops/checklist.md", "Checklist", "check the runbook before a deploy")
    m.commit("main: a checklist", checks=False)
    assert m.memidx_process("forget", ref).code == 0

    merged = m.run_git("merge", "--no-edit", "colleague")

    assert merged.returncode == 0, merged.stderr
    assert "came back" not in merged.stdout + merged.stderr
    assert m.git("ls-tree", "--name-only", "HEAD", "--", copy).strip() == copy
