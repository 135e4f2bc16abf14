"""memidx.portable_signals.stop_signals_held: the stop signals wait for the end of a step
that must not be cut in two (git's index.lock taken and renamed over, memidx.git.index_copy),
and the thread's signal mask is as it was after it."""

from __future__ import annotations

import signal
import threading
from collections.abc import Generator
from types import FrameType

import pytest

from memidx.portable_signals import stop_signals_held

pytestmark = pytest.mark.skipif(
    not hasattr(signal, "pthread_sigmask"), reason="no signal mask (Windows)"
)


@pytest.fixture
def mask_kept() -> Generator[None]:
    """The thread's mask and SIGHUP's handler put back after the test, whatever it did."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    handler = signal.getsignal(signal.SIGHUP)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        signal.signal(signal.SIGHUP, handler)


@pytest.mark.usefixtures("mask_kept")
def test_a_stop_signal_is_delivered_once_the_step_ends() -> None:
    seen: list[str] = []

    def record(number: int, frame: FrameType | None) -> None:
        seen.append("signal")

    signal.signal(signal.SIGHUP, record)
    with stop_signals_held():
        signal.pthread_kill(threading.get_ident(), signal.SIGHUP)
        seen.append("step done")

    assert seen == ["step done", "signal"]


@pytest.mark.usefixtures("mask_kept")
def test_a_signal_blocked_before_the_step_stays_blocked_after_it() -> None:
    """The mask was cleared of SIGINT, SIGTERM and SIGHUP at the end, though the process was
    started with one blocked (a mask is inherited through exec) or its caller held them."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})

    with stop_signals_held():
        pass

    assert signal.SIGHUP in signal.pthread_sigmask(signal.SIG_BLOCK, set())
    assert signal.SIGTERM not in signal.pthread_sigmask(signal.SIG_BLOCK, set())
