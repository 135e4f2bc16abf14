"""Multi-commit git commands that stop on a conflict and are aborted (`git cherry-pick A..B`,
`git revert`, `git am`): each commit they made moved HEAD and its hook followed it; the abort
moves HEAD back with no post-* hook, so the reference-transaction shim must follow it. And the
HEAD moves git tells no hook of: memidx is behind and says so until `memidx sync`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.test_git_scenarios import found, in_step, one_commit_each
from tests.machines import Machine, clone, hook_env, make_template


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    env = hook_env(tmp_path / "pre-commit-home")
    return clone(make_template(tmp_path, env), tmp_path / "a", env)


def side_branch(a: Machine) -> None:
    """main: notes/shared.md edited; side (from before): tapir.md, zebu.md, then shared.md
    edited otherwise, so picking side's three commits stops on the third."""
    one_commit_each(a, ("shared.md", "base words"))
    a.git("checkout", "-q", "-b", "side")
    one_commit_each(a, ("tapir.md", "tapir one"), ("zebu.md", "zebu two"), ("shared.md", "side"))
    a.git("checkout", "-q", "main")
    one_commit_each(a, ("shared.md", "main words"))


def stopped_cherry_pick(a: Machine, tmp_path: Path) -> tuple[str, ...]:
    a.run_git("cherry-pick", "main..side")
    return ("cherry-pick", "--abort")


def stopped_am(a: Machine, tmp_path: Path) -> tuple[str, ...]:
    a.git("format-patch", "-q", "-o", str(tmp_path / "patches"), "main..side")
    a.run_git("am", *sorted(str(p) for p in (tmp_path / "patches").iterdir()))
    return ("am", "--abort")


def stopped_revert(a: Machine, tmp_path: Path) -> tuple[str, ...]:
    """On side: revert zebu, tapir, then "shared" (conflicts with side's later edit)."""
    a.git("checkout", "-q", "side")
    a.run_git("revert", "--no-edit", "side~1", "side~2", "side~3")
    return ("revert", "--abort")


@pytest.mark.parametrize("stop", [stopped_cherry_pick, stopped_am, stopped_revert])
def test_a_multi_commit_pick_stopped_on_a_conflict_then_aborted_follows_head_back(
    machine: Machine, tmp_path: Path, stop: Callable[[Machine, Path], tuple[str, ...]]
) -> None:
    a = machine
    side_branch(a)
    abort = stop(a, tmp_path)
    before_abort = a.git("rev-parse", "HEAD").strip()
    done = a.run_git(*abort)
    assert done.returncode == 0, done.stdout + done.stderr
    after = a.git("rev-parse", "HEAD").strip()
    assert after != before_abort  # the commits made before the stop are undone
    search = a.memidx("search", "--json", "--mode", "bm25", "tapir").json()
    assert search["warnings"] == [], search["warnings"]  # followed: no `memidx sync` needed
    expected = ["notes/tapir.md"] if abort[0] == "revert" else []
    assert found(a, "tapir") == expected
    assert not (a.root / ".memidx" / "hook-error.log").exists()
    in_step(a)


@pytest.mark.parametrize("how", ["symbolic-ref", "no reflog"])
def test_a_head_move_git_tells_no_hook_of_is_behind_and_says_so_until_sync(
    machine: Machine, how: str
) -> None:
    """`git symbolic-ref HEAD` runs no reference-transaction hook (git 2.39); a HEAD with no
    reflog (`core.logAllRefUpdates = false` from the start) cannot say what moved it."""
    a = machine
    side_branch(a)
    if how == "symbolic-ref":
        a.git("symbolic-ref", "HEAD", "refs/heads/side")
        a.git("reset", "-q", "--hard")  # the work tree as side has it; HEAD stays
    else:
        a.git("config", "core.logAllRefUpdates", "false")
        (a.root / ".git" / "logs" / "HEAD").unlink()
        a.git("reset", "-q", "--hard", "side")
    search = a.memidx("search", "--json", "--mode", "bm25", "tapir").json()
    assert "run `memidx sync`" in search["warnings"][0]  # a ghost is never served silently
    assert a.memidx("status").code == 1
    assert a.memidx("sync").code == 0
    in_step(a)
    assert found(a, "tapir") == ["notes/tapir.md"]
