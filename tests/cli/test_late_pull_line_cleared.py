"""When the line a late `git pull` left (memidx.git.late_pull, `git pull:` in `memidx status`)
goes: with the hook of a pull's merge or rebase, not with an amend's post-rewrite (no pull ran,
the pull that failed still has to run again)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.index.failures import pull_trace
from tests.machines import Machine, clone, hook_env, make_template

LINE = "a git pull of this clone (pid 4242) started as memidx committed notes/x.md: run again"


@pytest.fixture
def machines(tmp_path: Path) -> tuple[Machine, Machine]:
    env = hook_env(tmp_path / "pre-commit-home")
    remote = make_template(tmp_path, env)
    return clone(remote, tmp_path / "a", env), clone(remote, tmp_path / "b", env)


def _left(machine: Machine) -> Path:
    """The line a late pull memidx could not put HEAD back for left; its trace."""
    config = load_config(machine.root, env={})
    pull_trace(config)(LINE, "")  # no `about`: only a merge's or rebase's hook clears it
    assert config.pull_error_path.exists()
    return config.pull_error_path


def test_an_amend_leaves_the_late_pull_s_line(machines: tuple[Machine, Machine]) -> None:
    a, _ = machines
    a.note("amended.md", "Amended", "a note committed, then amended")
    a.commit("to amend")
    trace = _left(a)

    a.git("commit", "-q", "--no-verify", "--amend", "-m", "amended")  # its post-rewrite: amend

    assert trace.exists(), "an amend is no pull: the pull that failed is still to run again"
    assert "git pull:" in a.memidx_process("status").out


def test_a_pull_s_rebase_clears_the_late_pull_s_line(machines: tuple[Machine, Machine]) -> None:
    a, b = machines
    b.note("theirs.md", "Theirs", "a note from the other machine")
    b.commit("theirs")
    b.git("push", "-q", "origin", "main")
    a.note("mine.md", "Mine", "a note of this machine, rebased by the pull")
    a.commit("mine")
    trace = _left(a)

    a.git("pull", "-q", "--rebase")  # its post-rewrite: rebase

    assert not trace.exists()
    assert "git pull:" not in a.memidx_process("status").out
