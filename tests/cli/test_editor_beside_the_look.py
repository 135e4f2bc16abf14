"""Processes that ran another program in the clone, started during memidx's last look under
HEAD's lock: no git committing, so no reason to wait. memidx took every process started in the
clone for a shell's child about to exec `git commit`: beside a loop of `git status` every 0.1 s
(an editor's, a prompt's, a person's `watch`) 6 of 8 `remember`s went pending (median 4.0 s,
against 8 of 8 committed, 2.1 s, before the last look came in)."""

from __future__ import annotations

import os
import signal
import subprocess
import time

from memidx.git.newcomers import arrived, last_pid, lately
from tests.cli.test_commit_at_the_look import orphan_in, stop
from tests.helpers import NotesRepo, clean_env

LOOP = "while :; do git status >/dev/null 2>&1; sleep 0.1; done"


def test_a_program_exec_d_in_the_clone_since_the_look_is_no_arrival(repo: NotesRepo) -> None:
    since = last_pid()
    assert since is not None  # Linux: this suite runs there
    editor = subprocess.Popen(["sleep", "5"], cwd=repo.root)  # exec'd: never git
    try:
        assert not arrived(repo.root, since)
    finally:
        editor.kill()
        editor.wait()


def test_a_program_exec_d_lately_in_the_clone_is_not_waited_for(repo: NotesRepo) -> None:
    pid = orphan_in(repo.root)  # `sleep 5`, its shell gone
    try:
        assert not lately(repo.root)
    finally:
        stop(pid)


def test_a_git_status_loop_in_the_clone_keeps_no_remember_waiting(repo: NotesRepo) -> None:
    """Ten looks over a second beside the loop: a look that catches the loop's shell between
    a fork and its exec of `git status` or `sleep` may wait, not most of them."""
    loop = subprocess.Popen(["sh", "-c", LOOP], cwd=repo.root, env=clean_env())
    busy = 0
    try:
        time.sleep(0.3)
        for _ in range(10):  # 1 s or so
            since = last_pid()
            time.sleep(0.02)  # the look's own time, while the loop starts its programs
            busy += lately(repo.root) or arrived(repo.root, since)
            time.sleep(0.08)
    finally:
        stop(loop.pid)
        loop.wait()
    assert busy <= 3, f"{busy} of 10 looks waited for a `git status` loop"


SUBSHELL = "( sleep 5; true ) & echo $!; sleep 0.1; echo started; wait"  # its own `sleep`


def test_a_subshell_running_its_commands_in_the_clone_is_no_arrival(repo: NotesRepo) -> None:
    """A fork that forked a child of its own (`$(git log | wc -l)` in a script's loop) runs
    its commands: no shell's child about to exec `git commit`."""
    since = last_pid()
    assert since is not None
    argv = ["sh", "-c", SUBSHELL]
    shell = subprocess.Popen(argv, cwd=repo.root, stdout=subprocess.PIPE, start_new_session=True)
    try:
        assert shell.stdout is not None
        assert int(shell.stdout.readline())  # the subshell
        assert shell.stdout.readline().strip() == b"started"  # with its `sleep`
        assert not lately(repo.root)
        assert not arrived(repo.root, since)
    finally:
        os.killpg(shell.pid, signal.SIGKILL)
        shell.wait()
