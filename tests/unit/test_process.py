"""Child processes (git plumbing) run without the subprocess module: output, errors and exit
status come back intact, large input and output never deadlock, and no descriptor leaks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memidx.process import run_process

ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def open_fds() -> int:
    fds = Path("/proc/self/fd")
    return sum(1 for _ in fds.iterdir()) if fds.is_dir() else 0


def test_stdout_stderr_and_exit_status_come_back_apart() -> None:
    done = run_process(["sh", "-c", "printf out; printf err >&2; exit 3"], ENV)

    assert (done.returncode, done.stdout, done.stderr) == (3, b"out", b"err")


def test_input_and_output_larger_than_a_pipe_do_not_deadlock() -> None:
    data = os.urandom(3 << 20)  # far beyond the 64 KiB a pipe holds

    done = run_process(["cat"], ENV, data)

    assert (done.returncode, done.stdout) == (0, data)


def test_a_child_that_stops_reading_its_input_is_no_error() -> None:
    done = run_process(["sh", "-c", "head -c 10 >/dev/null; echo done"], ENV, b"x" * (1 << 20))

    assert (done.returncode, done.stdout) == (0, b"done\n")


def test_a_missing_program_is_an_os_error_and_leaks_nothing() -> None:
    before = open_fds()
    with pytest.raises(FileNotFoundError):
        run_process(["memidx-no-such-program"], ENV)
    run_process(["true"], ENV, b"input")

    assert open_fds() == before


def test_the_child_sees_only_the_environment_given() -> None:
    done = run_process(["sh", "-c", 'printf "%s" "$ONLY_THIS"'], {**ENV, "ONLY_THIS": "yes"})

    assert done.stdout == b"yes"
