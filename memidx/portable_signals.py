"""Signals, as memidx/portable.py's operating-system-specific calls are (moved out of it, the
same rule, tests/unit/test_portability.py): the stop signals (SIGTERM; SIGHUP on POSIX),
signalling the main thread, and holding the stop signals over a step that must not be cut in
two (Windows has no signal mask: there the step runs unguarded, as before)."""

from __future__ import annotations

import sys
from collections.abc import Generator
from contextlib import contextmanager


def stop_signals() -> list[int]:
    """The signals a server ends on as on a normal stop: SIGTERM, and SIGHUP where there is one."""
    import signal

    return [signal.SIGTERM, *([] if sys.platform == "win32" else [signal.SIGHUP])]


def signal_main(number: int) -> None:
    """Signal `number` to the main thread as the system does: a sleep or select it waits in is
    cut short (`_thread.interrupt_main`, the fallback, runs the handler only once it returns)."""
    import signal
    import threading

    if hasattr(signal, "pthread_kill"):
        signal.pthread_kill(threading.main_thread().ident or 0, number)
    else:  # pragma: no cover - exercised on Windows only
        import _thread

        _thread.interrupt_main(signal.Signals(number))


@contextmanager
def stop_signals_held() -> Generator[None]:
    """SIGINT, SIGTERM and SIGHUP held back (this thread's mask) for the block and delivered
    once it ends: a step such as taking git's index.lock and renaming over the index is never
    left half done, its lock for the person to remove by hand. The mask is as it was after."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - Windows
        yield
        return
    # the mask as it was after: one the process was started with (inherited through exec), or
    # a caller's, keeps what it held (an unblock of all three freed them)
    before = signal.pthread_sigmask(
        signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    )
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
