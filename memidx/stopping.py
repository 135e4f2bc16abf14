"""Ending a server on a stop signal as on a normal stop: its `finally` clauses run (socket, pid
file and record removed) and it exits with the code a shell gives a process the signal ended."""

from __future__ import annotations

import threading
from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType

from memidx.portable import stop_signals

# How long a repeated stop signal waits for the first one's stop: it is ignored meanwhile, so it
# cannot cut the `finally` clauses the first one runs (a socket or pid file left half removed,
# an event loop's teardown cut, which left the process hung on its worker threads).
GRACE = 5.0
# How soon a stop signal that came inside the import machinery is raised again, once out of it.
AGAIN = 0.05


class Stopped(SystemExit):
    """A stop signal arrived: raised in the main thread wherever it is, so every `finally`
    runs as on a normal stop; a SystemExit, so no `except Exception` takes it for an error
    of one request. Its code is a shell's for a process a signal ended: 128 + the signal."""

    def __init__(self, signal_number: int) -> None:
        super().__init__(128 + signal_number)
        self.signal_number = signal_number


@dataclass(slots=True)
class Stop:
    """How a stopped_by_signals block ended: 0, or the exit code of the signal that ended it."""

    code: int = 0
    signal_name: str = ""


@contextmanager
def stopped_by_signals() -> Generator[Stop]:
    """Within the block, SIGTERM and SIGHUP (where there is one) raise Stopped in the main
    thread; the block's own `finally` clauses run and the block ends, its Stop telling with
    which code the process is to exit. Whatever unwinds the block once a signal came counts
    as the stop: code the signal interrupted may have turned Stopped into an error of its own
    (a library's callback from C does). Outside the main thread (where no handler can be set)
    the block runs as it is."""
    import signal
    import time

    stop = Stop()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    wanted = stop_signals()
    raised = [0.0]  # when Stopped was last raised

    def raise_stopped(number: int, frame: FrameType | None) -> None:
        if stop.code and time.monotonic() - raised[0] < GRACE:
            return  # the first one's stop is still running its `finally` clauses
        if in_imports(frame):
            _again(number, timers)
            return
        if not stop.code:
            stop.code = 128 + number
            stop.signal_name = signal.Signals(number).name
        raised[0] = time.monotonic()
        raise Stopped(number)  # again after the grace: the first may have been swallowed

    timers: list[threading.Timer] = []  # signals to act on again, once out of the imports
    before = {number: signal.signal(number, raise_stopped) for number in wanted}
    try:
        yield stop
    except BaseException:
        if not stop.code:
            raise
    finally:
        for timer in timers:
            timer.cancel()
        for number, handler in before.items():
            signal.signal(number, handler)


def in_imports(frame: FrameType | None) -> bool:
    """Whether `frame` runs inside Python's import machinery, where an exception raised may
    leave the import lock held: a weakref callback of importlib takes it before its `try`, and
    swallows what is raised there. Every other thread's import then waits for ever (the
    shared server's reader, which its stop waits for), and the stop itself is lost."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


def _again(number: int, timers: list[threading.Timer]) -> None:
    """The signal `number` once more, in the main thread, in AGAIN seconds (as a signal's
    handler runs: once the main thread runs Python code; nothing once the block ended)."""
    import _thread

    timer = threading.Timer(AGAIN, _thread.interrupt_main, (number,))
    timer.daemon = True
    timers.append(timer)
    timer.start()
