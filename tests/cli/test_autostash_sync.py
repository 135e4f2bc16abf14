"""The records an autostash brings back are found as soon as the pull that applied it ends: git
applies it after the pull's last other hook, and memidx's post-index-change shim syncs then,
starting memidx for that apply only (git runs the hook at every write of its index). A bare
remote and two clones with memidx's hooks; no memidx command run by hand between git steps."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_sync_hard import found, push, rebuilt_the_same
from tests.cli.test_two_machines import filed, filed_between_add_and_commit
from tests.machines import Machine, clone, hook_env, make_template


@pytest.fixture
def machines(tmp_path: Path) -> tuple[Machine, Machine, Path]:
    """Two clones whose hooks start memidx through a script that logs each start."""
    started = tmp_path / "started.log"
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\necho "$*" >>"{started}"\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    env = hook_env(tmp_path / "pre-commit-home", MEMIDX_PYTHON=str(python))
    remote = make_template(tmp_path, env)
    return clone(remote, tmp_path / "a", env), clone(remote, tmp_path / "b", env), started


def index_change_syncs(started: Path) -> int:
    """How many times memidx's post-index-change shim started memidx."""
    lines = started.read_text().splitlines() if started.exists() else []
    return sum("hook post-index-change" in line for line in lines)


@pytest.mark.parametrize(
    "pull",
    [
        ["pull", "--rebase", "--autostash"],  # a's commit rebased onto b's
        ["pull", "--no-rebase", "--autostash"],  # a merge commit
        ["-c", "rebase.autoStash=true", "-c", "rebase.backend=apply", "pull", "--rebase"],
    ],
    ids=["rebase", "merge", "apply-backend"],
)
def test_turns_an_autostash_brings_back_are_found_right_after_the_pull(
    machines: tuple[Machine, Machine, Path], pull: list[str]
) -> None:
    """A turn filed between `git add -A` and `git commit` is in the work tree alone; the pull
    takes it aside, its hooks sync the segment cut back to HEAD's part, and the autostash
    puts it back: found at once, once, with no sync run by hand; memidx started once for
    the apply."""
    a, b, started = machines
    filed_between_add_and_commit(a)
    b.note("from-b.md", "From B", "buffalo note")
    b.commit("b", checks=False)  # sets the pull up: its checks are not what is tested
    push(b)
    before = index_change_syncs(started)

    pulled = a.run_git(*pull)

    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    assert "Applied autostash" in pulled.stdout + pulled.stderr
    for word in ("capybara", "dromedary", "echidna", "buffalo"):
        assert len(found(a, word)) == 1, (word, found(a, word))
    assert index_change_syncs(started) - before == 1
    rebuilt_the_same(a)


def test_index_writes_outside_an_autostash_start_no_memidx(
    machines: tuple[Machine, Machine, Path],
) -> None:
    """git writes its index at every add, status, reset and checkout: the shim starts memidx
    for none of them (nor for `git stash pop` or `git stash apply` by hand, whose writes no
    autostash waits for)."""
    a, _, started = machines
    filed_between_add_and_commit(a)
    a.note("idea.md", "Idea", "a note in the work tree")
    a.git("add", "-A")
    a.git("status", "--porcelain")
    a.git("reset", "-q")
    a.git("stash", "-q")
    a.git("stash", "pop", "-q")
    a.git("stash", "-q")
    # as git runs it for an autostash (no `-c` before `stash`): no autostash waits
    subprocess.run(["git", "stash", "apply", "-q"], cwd=a.root, env=a.env, check=True)
    a.git("checkout", "-q", "-b", "side")
    a.git("checkout", "-q", "main")
    assert index_change_syncs(started) == 0


@pytest.mark.parametrize(
    "pull",
    [["pull", "--rebase", "--autostash"], ["pull", "--no-rebase", "--autostash"]],
    ids=["rebase", "fast-forward"],
)
def test_a_staged_segment_the_autostash_holds_is_left_for_git_to_bring_back(
    machines: tuple[Machine, Machine, Path], pull: list[str]
) -> None:
    """`git add -A` staged a new segment, a turn was filed after it: the autostash holds the
    file, and the pull takes it off the disk. A sync of the pull's hooks wrote it back from
    its copy (no commit a ref names held it), and the autostash's apply stopped on it:
    "Applying autostash resulted in conflicts", the stash left for the person to sort out."""
    a, b, _ = machines
    filed(a, "capybara turn before git add", "s")
    a.git("add", "-A")
    filed(a, "dromedary turn after git add", "s")
    b.note("from-b.md", "From B", "buffalo note")
    b.commit("b", checks=False)  # sets the pull up: its checks are not what is tested
    push(b)

    pulled = a.run_git(*pull)

    said = pulled.stdout + pulled.stderr
    assert pulled.returncode == 0 and "Applied autostash" in said, said
    assert "conflict" not in said and a.git("stash", "list") == ""
    for word in ("capybara", "dromedary", "buffalo"):
        assert len(found(a, word)) == 1, (word, found(a, word))
    rebuilt_the_same(a)
