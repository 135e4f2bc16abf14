"""A rebase stopped at an `edit` (or a conflict, a `break`) moved HEAD past what memidx's hooks
followed: git runs no hook at its picks. `memidx status` and `memidx search` said the index was
behind "(a git operation no memidx hook followed, e.g. git reset ..., or a hook failed)": no
hook had failed, and the way on (the rebase's end, or `memidx sync`) was not said. They name
the rebase; once it ends, its hook brings the index to HEAD. The drift check blocked the
person's `git commit --amend` at the stop ("the index has drifted from HEAD ... a hook
failed"): it brings the index to HEAD first, as the next hook would."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers import GIT_IDENTITY
from tests.machines import Machine, clone, hook_env, make_template


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    env = hook_env(tmp_path / "pre-commit-home")
    return clone(make_template(tmp_path, env), tmp_path / "a", env)


def _stopped_at_an_edit(m: Machine) -> None:
    m.note("ops/beta.md", "Beta", "the giraffe note")
    m.commit("beta", checks=False)
    m.note("ops/gamma.md", "Gamma", "the okapi note")
    m.commit("gamma", checks=False)
    env = {**m.env, "GIT_SEQUENCE_EDITOR": "sed -i 1s/^pick/edit/"}
    argv = ["git", *GIT_IDENTITY, "rebase", "-i", "HEAD~2"]
    done = subprocess.run(argv, cwd=m.root, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert (m.root / ".git" / "rebase-merge").is_dir()


def test_status_and_search_name_a_stopped_rebase_as_why_the_index_is_behind(
    machine: Machine,
) -> None:
    m = machine
    _stopped_at_an_edit(m)
    status = m.memidx_process("status")
    behind = [line for line in status.out.splitlines() if line.startswith("behind:")]
    assert behind, status.out
    assert "a rebase is under way or stopped (an edit, a conflict, a break)" in behind[0]
    assert "no hook failed" not in behind[0] and "a hook failed" not in behind[0], behind[0]
    assert "`git rebase --continue`" in behind[0] and "`memidx sync`" in behind[0], behind[0]
    searched = m.memidx_process("search", "--mode", "bm25", "--json", "giraffe")
    assert searched.code == 0, searched.err
    assert "a rebase is under way or stopped" in searched.err, searched.err

    assert m.run_git("rebase", "--continue").returncode == 0

    status = m.memidx_process("status")
    assert status.code == 0 and "behind:" not in status.out, status.out


def test_an_amend_at_a_rebase_s_edit_stop_is_not_blocked_by_the_drift_check(
    machine: Machine,
) -> None:
    m = machine
    _stopped_at_an_edit(m)
    m.note("ops/beta.md", "Beta", "the giraffe note, amended at the stop")
    m.git("add", "-A")

    amended = m.run_git("commit", "-q", "--amend", "--no-edit")

    assert amended.returncode == 0, amended.stdout + amended.stderr
    assert "the index follows HEAD (" in amended.stderr, amended.stderr
    assert m.run_git("rebase", "--continue").returncode == 0
    status = m.memidx_process("status")
    assert status.code == 0 and "behind:" not in status.out, status.out
    assert "notes/ops/beta.md" in {ref for ref, _ in m.search_refs("giraffe amended")}
