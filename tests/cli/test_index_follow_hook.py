"""A person's `git switch` in its post-checkout hook (a slow `npm install`, or memidx's own hook
waiting for the lock the committing memidx holds) has written its files, index and HEAD: the
index follow of memidx's commit (memidx.git.index_follow) waited for it all the same, every
commit stalled for the whole wait (10 s), as side commits did (test_pending_elsewhere_switch)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from memidx.git.index_follow import follow
from tests.cli.test_late_merge import wait_for
from tests.helpers import NotesRepo, clean_env


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_switch_in_its_post_checkout_hook_is_not_waited_for(tmp_path: Path) -> None:
    from memidx.git.plumbing import Plumbing

    repo = NotesRepo(tmp_path / "memory")
    repo.note("first.md", "First", "a first note")
    repo.commit("first")
    repo.git("branch", "side")
    repo.note("second.md", "Second", "a second note, on main alone")
    commit = repo.commit("second")
    in_hook = tmp_path / "in-hook"
    hook = repo.root / ".git" / "hooks" / "post-checkout"
    hook.write_text(f'#!/bin/sh\ntouch "{in_hook}"\nsleep 60\n')
    hook.chmod(0o755)
    switch = subprocess.Popen(
        ["git", "switch", "-q", "side"], cwd=repo.root, env=clean_env(), start_new_session=True
    )
    try:
        wait_for("the switch to run its post-checkout hook", in_hook.exists)
        started = time.monotonic()
        follow(
            Plumbing(repo.root),
            repo.root,
            ["notes/second.md"],
            commit,
            branch="refs/heads/main",
            deadline=time.monotonic() + 10,
            done="committed",
            shows="it",
        )
        took = time.monotonic() - started
    finally:
        os.killpg(switch.pid, signal.SIGKILL)  # the switch, its hook and its sleep
        switch.wait(timeout=10)

    assert took < 5, took  # it waited the whole 10 s
    assert repo.git("symbolic-ref", "HEAD").strip() == "refs/heads/side"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_worktree_add_run_here_is_not_waited_for(tmp_path: Path) -> None:
    """`git worktree add ../other -b side` run in this work tree writes another work tree's
    HEAD, index and files, never this one's: the index follow waited for it all the same (a
    `memidx remember` during a worktree add of a 5 s checkout took 4.7 s, 0.7 s without)."""
    from memidx.git.plumbing import Plumbing

    repo = NotesRepo(tmp_path / "memory")
    repo.write(".gitattributes", "*.bin filter=slow\n")
    repo.write("big.bin", "checked out slowly\n")
    repo.note("first.md", "First", "a first note")
    repo.commit("first")
    repo.git("config", "filter.slow.smudge", f'touch "{tmp_path / "smudging"}"; sleep 8; cat')
    repo.git("config", "filter.slow.clean", "cat")
    repo.note("second.md", "Second", "a second note")
    commit = repo.commit("second")
    add = subprocess.Popen(
        ["git", "worktree", "add", "-q", str(tmp_path / "other"), "-b", "side"],
        cwd=repo.root,
        env=clean_env(),
        start_new_session=True,
    )
    try:
        wait_for("the worktree add to check out", (tmp_path / "smudging").exists)
        started = time.monotonic()
        follow(
            Plumbing(repo.root),
            repo.root,
            ["notes/second.md"],
            commit,
            branch="refs/heads/main",
            deadline=time.monotonic() + 10,
            done="committed",
            shows="it",
        )
        took = time.monotonic() - started
    finally:
        with contextlib.suppress(ProcessLookupError):  # the add, its checkout, the filter
            os.killpg(add.pid, signal.SIGKILL)
        add.wait(timeout=10)

    assert took < 4, took  # it waited for the worktree add to end (8 s)
    assert repo.git("symbolic-ref", "HEAD").strip() == "refs/heads/main"
