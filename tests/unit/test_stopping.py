"""A stop signal ends a stopped_by_signals block as a normal stop does: its `finally` clauses
run whole, even when the signal comes again meanwhile."""

from __future__ import annotations

import contextlib
import os
import signal
import time

import pytest

from memidx import stopping
from memidx.stopping import Stopped, stopped_by_signals


def _signal_and_wait(number: int) -> None:
    os.kill(os.getpid(), number)
    time.sleep(5)  # the handler raises Stopped here, at once


def test_a_repeated_stop_signal_never_cuts_the_first_ones_cleanup() -> None:
    """A second SIGHUP or SIGTERM (a closed terminal, then a kill; systemd after a shell) raised
    Stopped again inside the `finally` the first one ran: a pid file or socket left behind, or
    the event loop's teardown cut, the process then hung on anyio's worker threads."""
    cleaned: list[str] = []
    with stopped_by_signals() as stop:
        try:
            _signal_and_wait(signal.SIGHUP)
        finally:
            os.kill(os.getpid(), signal.SIGTERM)
            cleaned.append("socket removed")

    assert (stop.code, stop.signal_name, cleaned) == (129, "SIGHUP", ["socket removed"])


def test_a_stop_signal_after_the_grace_stops_a_block_that_swallowed_the_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stopping, "GRACE", 0.0)
    reached: list[str] = []
    with stopped_by_signals() as stop:
        with contextlib.suppress(Stopped):  # a library that took it for its own error
            _signal_and_wait(signal.SIGTERM)
        _signal_and_wait(signal.SIGTERM)
        reached.append("served on")

    assert (stop.code, reached) == (143, [])
