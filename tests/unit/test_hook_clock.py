"""When a hook's process began (memidx.process_start.began), the start of the agent hook's
clock: its start-up (Python's start, memidx's imports) is on it, as it is on the agent's wait."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

import memidx
from memidx import process_start
from memidx.process_start import began

LINUX = pytest.mark.skipif(
    process_start.process_started(os.getpid()) is None or process_start.uptime() is None,
    reason="Linux /proc tells start times",
)
# a process that waits 1 s before it imports memidx, then says how long ago began() says it began
SLOW = (
    "import time\ntime.sleep(1.0)\nfrom memidx.process_start import began\n"
    "print(time.monotonic() - began())"
)


@LINUX
def test_a_process_began_before_its_imports() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SLOW], capture_output=True, text=True, timeout=60, check=True
    )

    assert 1.0 <= float(done.stdout) < 60.0


def test_without_proc_its_cpu_time_and_memidx_s_imports_are_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where no /proc says (not Linux): at least its CPU time, at least since memidx's import."""
    monkeypatch.setattr(process_start, "process_started", _no_proc)

    ago = time.monotonic() - began()

    assert ago >= time.process_time() - 0.01
    assert ago >= time.perf_counter() - memidx.STARTED - 0.01


def _no_proc(_pid: int | str) -> str | None:
    return None
