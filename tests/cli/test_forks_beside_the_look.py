"""A program in the clone that keeps forking children that never exec (Python's
multiprocessing with fork, a preforking server): no shell's child about to exec `git commit`,
so no reason to wait. memidx took each such fork for one: beside a Python script forking a
worker every 50 ms, 3 of 3 `remember`s waited 4 to 12 s and 2 went pending ("HEAD kept
moving"). Only a shell's fork (memidx/git/newcomers.py SPAWNERS) is waited for now."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Generator
from pathlib import Path

from memidx.git.newcomers import arrived, last_pid, lately
from tests.helpers import NotesRepo

WORKERS = """import os, sys, time
end = time.monotonic() + 20
print(os.getpid(), flush=True)
while time.monotonic() < end:
    if os.fork() == 0:
        time.sleep(0.2)  # a worker: runs Python, never execs
        os._exit(0)
    time.sleep(0.05)
    with __import__("contextlib").suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
"""


@contextlib.contextmanager
def forking_in(folder: Path) -> Generator[None]:
    """A Python script in `folder` forking a worker every 50 ms (20 s at most)."""
    argv = [sys.executable, "-c", WORKERS]
    script = subprocess.Popen(argv, cwd=folder, stdout=subprocess.PIPE, text=True)
    try:
        assert script.stdout is not None
        assert int(script.stdout.readline())
        time.sleep(0.1)  # its first workers run
        yield
    finally:
        script.kill()
        script.wait()


def test_a_python_worker_forked_in_the_clone_is_no_arrival(repo: NotesRepo) -> None:
    since = last_pid()
    assert since is not None  # Linux: this suite runs there
    with forking_in(repo.root):
        assert not arrived(repo.root, since)
        assert not lately(repo.root)


def test_a_forking_script_in_the_clone_keeps_no_remember_waiting(repo: NotesRepo) -> None:
    repo.note("welcome.md", "Welcome", "the shared memory")
    repo.commit("notes")
    with forking_in(repo.root):
        runs = [
            repo.memidx_process("remember", "--title", f"Worker {n}", stdin="Forks.\n")
            for n in range(3)
        ]
    assert [run.code for run in runs] == [0, 0, 0], [run.err for run in runs]
    assert not any("not committed yet" in run.err for run in runs), [run.err for run in runs]
