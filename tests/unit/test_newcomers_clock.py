"""The look for gits that started lately (memidx.git.newcomers) reads starts in /proc against the
boot clock: a container's lxcfs puts the container's uptime in /proc/uptime while /proc's starts
stay the host's, and every process in the clone, the person's shell or a long `git` alias,
was read as started within RECENT."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from functools import partial

import pytest

from memidx import process_start
from memidx.git import newcomers

LINUX = pytest.mark.skipif(
    process_start.process_started(os.getpid()) is None or process_start.uptime() is None,
    reason="reads Linux /proc",
)


@pytest.fixture
def sleeper() -> Iterator[str]:
    """A process that started more than RECENT seconds ago, running."""
    child = subprocess.Popen(["sleep", "20"])
    try:
        time.sleep(newcomers.RECENT * 3)
        yield str(child.pid)
    finally:
        child.kill()
        child.wait()


@LINUX
def test_a_process_is_not_young_where_proc_uptime_is_a_container_s(
    sleeper: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = newcomers.read_proc

    def lxcfs(path: str) -> bytes:  # the container started 500 s ago, the host long before
        return b"500.00 400.00\n" if path == "/proc/uptime" else real(path)

    monkeypatch.setattr(newcomers, "read_proc", lxcfs)
    assert int(process_start.process_started(sleeper) or 0) > 600 * process_start.clock_ticks()

    assert not newcomers.young(sleeper)


def _started(start: str, _pid: int | str) -> str:
    """process_started's answer, whatever the process."""
    return start


@LINUX
@pytest.mark.parametrize("ahead", [1.0, 3600.0])
def test_a_process_whose_start_is_read_in_the_future_is_not_young(
    sleeper: str, monkeypatch: pytest.MonkeyPatch, ahead: float
) -> None:
    """A start past the boot clock's now (clock skew, a bad read of /proc) was judged young:
    an alias's git running a shell was then waited for as one about to commit, for all of
    memidx's bound."""
    from memidx.git.any_command import may_run_any
    from memidx.git.invocation import SHELL_ALIAS

    now = (process_start.uptime() or 0) * process_start.clock_ticks()
    future = str(int(now + ahead * process_start.clock_ticks()))
    monkeypatch.setattr(newcomers, "process_started", partial(_started, future))

    assert not newcomers.young(sleeper)
    assert not may_run_any(SHELL_ALIAS, sleeper)  # not waited for as an alias's shell


@LINUX
def test_a_process_started_now_is_young(sleeper: str, monkeypatch: pytest.MonkeyPatch) -> None:
    now = (process_start.uptime() or 0) * process_start.clock_ticks()
    monkeypatch.setattr(newcomers, "process_started", partial(_started, str(int(now))))

    assert newcomers.young(sleeper)
