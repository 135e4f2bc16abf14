"""When a hook's process began (memidx.process_start.began), the start of the agent hook's
clock: its start-up (Python's start, memidx's imports) is on it, as it is on the agent's wait."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable

import pytest

import memidx
from memidx import process_start
from memidx.agents.hook_clock import work_ends
from memidx.process_start import began, started_after

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


def _stat_of(start: int, parent: int) -> Callable[[int | str], tuple[str, list[str]]]:
    """A /proc stat reader that says this process started `start` ticks after boot, its parent
    (and any other) `parent` ticks after it; its parent's pid is this process's parent's now."""
    ppid = str(os.getppid())

    def read(pid: int | str) -> tuple[str, list[str]]:
        fields = ["S", ppid, *["0"] * 17, str(start if pid == "self" else parent)]
        return "python3", fields

    return read


@pytest.fixture
def ticking(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], None]:
    """Make the system say `rate` clock ticks a second (SC_CLK_TCK), read anew."""

    def tick(rate: int) -> None:
        real = os.sysconf

        def sysconf(name: str | int) -> int:
            return rate if name == "SC_CLK_TCK" else real(name)

        monkeypatch.setattr(os, "sysconf", sysconf)
        monkeypatch.setattr(process_start, "_ticks", [])

    return tick


@pytest.mark.parametrize("rate", [50, 100, 250])
def test_a_start_is_read_in_the_ticks_the_system_says(
    monkeypatch: pytest.MonkeyPatch, ticking: Callable[[int], None], rate: int
) -> None:
    """USER_HZ is 100 on most Linux, not all: read as 100 a start at another rate was read
    seconds off, and the hook judged late or early by as much."""
    ticking(rate)
    monkeypatch.setattr(process_start, "uptime", lambda: 1000.0)
    monkeypatch.setattr(process_start, "proc_stat", _stat_of(int(999.6 * rate), 100))

    now = time.monotonic()
    started = began()

    assert now - started == pytest.approx(0.4, abs=0.05)
    assert work_ends(started, now, 1.5) == pytest.approx(started + 1.5)  # not late: no grace
    # a process that started 999.6 s after boot is after a file made at 998 s, none at 999 s
    at = 1_800_000_000.0
    wall = {"wall": at + 1000.0, "since_boot": 1000.0, "least": at}
    assert started_after(int(999.6 * rate), at + 998.0, **wall)
    assert not started_after(int(999.6 * rate), at + 999.0, **wall)


def test_the_tick_rate_is_100_where_the_system_does_not_say(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def unknown(name: str) -> int:
        raise ValueError(name)

    monkeypatch.setattr(os, "sysconf", unknown)
    monkeypatch.setattr(process_start, "_ticks", [])

    assert process_start.clock_ticks() == 100


@pytest.mark.parametrize(
    ("start", "parent"),
    [
        (0, 0),  # WSL1, a /proc a container fakes: every process started at boot
        (2_000_000, 100),  # 20,000 s after boot, 1,000 s after now
        (50_000, 60_000),  # before its parent's start
    ],
)
def test_an_impossible_start_in_proc_falls_back_to_the_hooks_own_clock(
    monkeypatch: pytest.MonkeyPatch, ticking: Callable[[int], None], start: int, parent: int
) -> None:
    """Read as it is, a start of 0 put every hook's start at boot, judged late at each prompt
    (its work cut to the grace, a notice traced), and one in the future put it now."""
    ticking(100)
    monkeypatch.setattr(process_start, "uptime", lambda: 10_000.0)
    monkeypatch.setattr(process_start, "proc_stat", _stat_of(start, parent))
    least = max(time.process_time(), time.perf_counter() - memidx.STARTED)

    ago = time.monotonic() - began()

    most = max(time.process_time(), time.perf_counter() - memidx.STARTED)
    assert least - 0.01 <= ago <= most + 0.01


def test_a_parent_pid_given_again_since_the_hook_read_its_own_is_not_its_parent(
    monkeypatch: pytest.MonkeyPatch, ticking: Callable[[int], None]
) -> None:
    """Its parent ended between the hook's read of its own stat and its parent's, that pid given
    to a process started since: taken for its parent, a true start was read as impossible and
    the hook's clock started at memidx's import (Python's start not counted)."""
    ticking(100)
    monkeypatch.setattr(process_start, "uptime", lambda: 1000.0)
    monkeypatch.setattr(process_start, "proc_stat", _stat_of(99_960, 99_990))
    monkeypatch.setattr(os, "getppid", lambda: 1)  # re-parented to init: its pid another's

    now = time.monotonic()
    started = began()

    assert now - started == pytest.approx(0.4, abs=0.05)
