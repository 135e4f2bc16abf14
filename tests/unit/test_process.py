"""Child processes (git plumbing, memidx.git.process): output, errors and exit
status come back intact, large input and output never deadlock, and no descriptor leaks."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from memidx.git.process import Stopped, run_process, spawn_detached

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


def test_a_watch_stops_the_child_at_once_and_leaks_nothing() -> None:
    before = open_fds()
    seen: list[int] = []

    def enough(data: bytes) -> bool:
        seen.append(len(data))
        return sum(seen) > 1 << 20

    with pytest.raises(Stopped):
        run_process(["head", "-c", str(1 << 30), "/dev/zero"], ENV, watch=enough)

    assert sum(seen) < 2 << 20  # stopped after about 1 MiB, not the whole GiB
    assert open_fds() == before
    seen.clear()
    assert run_process(["head", "-c", "1000", "/dev/zero"], ENV, watch=enough).stdout == bytes(1000)


def test_a_program_that_cannot_start_is_an_error_and_leaks_nothing() -> None:
    before = open_fds()
    with pytest.raises(FileNotFoundError):
        run_process(["memidx-no-such-program"], ENV)
    with pytest.raises(ValueError, match="null"):
        run_process(["sh", "-c", "true\0"], ENV)
    run_process(["true"], ENV, b"input")

    assert open_fds() == before


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs Linux's /proc")
def test_the_child_gets_the_signals_python_ignores_back() -> None:
    done = run_process(["sh", "-c", "grep SigIgn /proc/$$/status"], ENV)

    ignored = int(done.stdout.split()[1], 16)
    assert not ignored & (1 << (signal.SIGPIPE - 1))  # `git ... | head` must end quietly


def test_output_survives_a_parent_that_ignores_sigchld() -> None:
    previous = signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel then reaps children
    try:
        done = run_process(["sh", "-c", "printf kept"], ENV)
    finally:
        signal.signal(signal.SIGCHLD, previous)

    assert done.stdout == b"kept"


def test_the_child_sees_only_the_environment_given() -> None:
    done = run_process(["sh", "-c", 'printf "%s" "$ONLY_THIS"'], {**ENV, "ONLY_THIS": "yes"})

    assert done.stdout == b"yes"


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="needs Linux's /proc")
def test_a_detached_child_has_its_own_session_and_appends_to_the_log(tmp_path: Path) -> None:
    log = tmp_path / "embed.log"
    log.write_text("earlier run\n")
    script = "import os, sys; print(os.getsid(0), flush=True); print('to stderr', file=sys.stderr)"

    first = spawn_detached([sys.executable, "-c", script], log)

    deadline = time.monotonic() + 30
    while "to stderr" not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert log.read_text().splitlines() == ["earlier run", str(first), "to stderr"]
    stat = Path(f"/proc/{first}/stat")
    while stat.exists() and " Z " not in stat.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)  # until it has exited (a zombie: nobody has waited for it yet)
    spawn_detached([sys.executable, "-c", "pass"], log)
    with pytest.raises(ChildProcessError):  # the second start reaped the first: no zombie
        os.waitpid(first, os.WNOHANG)
