"""The look for gits that started lately (memidx.git.newcomers) reads starts in /proc against the
boot clock: a container's lxcfs puts the container's uptime in /proc/uptime while /proc's starts
stay the host's, and every process in the clone, the person's shell or a long `git` alias,
was read as started within RECENT."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator

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
