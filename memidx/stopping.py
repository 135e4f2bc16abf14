"""Ending a server on a stop signal as on a normal stop: its `finally` clauses run (socket, pid
file and record removed) and it exits with the code a shell gives a process the signal ended.

The signal's handler takes no lock and starts no thread: the main thread it interrupts may
hold one of threading's own locks (inside `Thread.start`), which the handler would then wait
for ever to take. What must happen later (a signal acted on again once out of the import
machinery or out of a finalizer that swallowed it, the hard exit of a stop that never ends)
is done by a watcher thread started with the block, which the handler only wakes, by writing
one byte to a socket."""

from __future__ import annotations

import contextlib
import math
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Generator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType

from memidx.portable_signals import signal_main, stop_signals

# How long a repeated stop signal waits for the first one's stop: it is ignored meanwhile, so it
# cannot cut the `finally` clauses the first one runs (a socket or pid file left half removed,
# an event loop's teardown cut, which left the process hung on its worker threads).
GRACE = 5.0
# How soon a stop signal that came inside the import machinery is raised again, once out of it.
AGAIN = 0.05
# How long a stop may take from its first signal: past it the process exits at once, with the
# same code, whatever its `finally` clauses left (a main thread waiting in the import machinery
# for a thread that itself waits for the stop never gets out of it to be stopped).
LIMIT = 30.0
_AGAIN_BIT = 0x80  # in a byte told to the watcher: the signal is to be raised again
_CLOSE = 0  # the byte that ends the watcher (no signal is numbered 0)


class Stopped(SystemExit):
    """A stop signal arrived: raised in the main thread wherever it is, so every `finally`
    runs as on a normal stop; a SystemExit, so no `except Exception` takes it for an error
    of one request. Its code is a shell's for a process a signal ended: 128 + the signal."""

    def __init__(self, signal_number: int) -> None:
        super().__init__(128 + signal_number)
        self.signal_number = signal_number


@dataclass(slots=True)
class Stop:
    """How a stopped_by_signals block ended: 0, or the exit code of the signal that ended it.
    `owned` holds what the block's `finally` clauses would remove, for a stop past LIMIT to
    remove before it exits at once (a server's socket and record: left, they named a server
    that no longer ran). Each must take no lock the stuck main thread may hold."""

    code: int = 0
    signal_name: str = ""
    owned: list[Callable[[], None]] = field(default_factory=lambda: [])


@contextmanager
def stopped_by_signals() -> Generator[Stop]:
    """Within the block, SIGTERM and SIGHUP (where there is one) raise Stopped in the main
    thread; the block's own `finally` clauses run and the block ends, its Stop telling with
    which code the process is to exit. Whatever unwinds the block once a signal came counts
    as the stop: code the signal interrupted may have turned Stopped into an error of its own
    (a library's callback from C does). A stop still running LIMIT seconds after the first
    signal ends the process at once. Outside the main thread (where no handler can be set)
    the block runs as it is."""
    import signal

    stop = Stop()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    raised = [0.0]  # when Stopped was last raised
    ending = [False]  # the block is ending: a signal acted on again now only sets the code
    watcher = _Watcher(stop.owned)

    def raise_stopped(number: int, frame: FrameType | None) -> None:
        if ending[0]:  # nothing more to stop: the block's own end runs whole (handlers put back)
            if not stop.code:
                stop.code, stop.signal_name = 128 + number, signal.Signals(number).name
            return
        if stop.code and time.monotonic() - raised[0] < GRACE:
            return  # the first one's stop is still running its `finally` clauses
        if in_imports(frame):
            watcher.tell(number, again=True)
            return
        if not stop.code:
            stop.code, stop.signal_name = 128 + number, signal.Signals(number).name
        watcher.tell(number, again=False)
        raised[0] = time.monotonic()
        raise Stopped(number)  # again after the grace: the first may have been swallowed

    unraisable = sys.unraisablehook

    def swallowed(what: sys.UnraisableHookArgs) -> None:
        """Stopped raised where no exception can leave (a `__del__`, a weakref callback, the
        collector) is printed and dropped there, and the block would run on until LIMIT:
        raised again, at once, once out of it."""
        if not isinstance(what.exc_value, Stopped) or ending[0]:
            unraisable(what)
            return
        raised[0] = -math.inf  # not a repeat within the grace: the first never got out
        watcher.tell(what.exc_value.signal_number, again=True)

    before = {number: signal.signal(number, raise_stopped) for number in stop_signals()}
    sys.unraisablehook = swallowed
    try:
        yield stop
    except BaseException:
        if not stop.code:
            raise
    finally:
        ending[0] = True
        if sys.unraisablehook is swallowed:
            sys.unraisablehook = unraisable
        watcher.close()
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


class _Watcher:
    """A daemon thread that acts for the signal handler on what the handler may not do itself:
    it raises again, AGAIN seconds on, a signal that came inside the import machinery (in the
    main thread, as a signal's handler runs; one at a time however many come), and it ends the
    process LIMIT seconds after the first signal if the block is still running."""

    def __init__(self, owned: list[Callable[[], None]]) -> None:
        self.owned = owned
        self._wake, self._told = socket.socketpair()
        self._wake.setblocking(False)
        self.closing = False
        self._thread = threading.Thread(target=self._run, name="memidx-stop", daemon=True)
        self._thread.start()

    def tell(self, number: int, *, again: bool) -> None:
        """A stop signal came (from the handler: no lock taken, no thread started)."""
        with contextlib.suppress(OSError):  # full: what it holds already says enough
            self._wake.send(bytes([number | (_AGAIN_BIT if again else 0)]))

    def close(self) -> None:
        self.closing = True
        with contextlib.suppress(OSError):
            self._wake.send(bytes([_CLOSE]))
        self._thread.join(5.0)
        self._wake.close()
        self._told.close()

    def _run(self) -> None:
        first, deadline, pending, again_at = 0, math.inf, 0, math.inf
        while True:
            now = time.monotonic()
            if now >= deadline:
                _hard_exit(first, self.owned)
            if pending and now >= again_at:
                if not self.closing:
                    signal_main(pending)
                pending, again_at = 0, math.inf
            wait = min(deadline, again_at) - now
            self._told.settimeout(max(wait, 0.001) if math.isfinite(wait) else None)
            try:
                told = self._told.recv(64)
            except TimeoutError:
                continue
            except OSError:
                return
            if not told or _CLOSE in told:
                return
            for byte in told:
                if not first:
                    first, deadline = byte & ~_AGAIN_BIT, time.monotonic() + LIMIT
                if byte & _AGAIN_BIT and not pending:
                    pending, again_at = byte & ~_AGAIN_BIT, time.monotonic() + AGAIN


def _hard_exit(number: int, owned: list[Callable[[], None]]) -> None:
    """End the process now, with the code of the signal that asked for the stop, once what it
    owns is removed: written straight to stderr, as no lock of the stuck main thread's may be
    waited for."""
    import signal

    left = 0
    for remove in list(owned):
        try:
            remove()
        except Exception:  # noqa: BLE001  # the others are removed all the same
            left += 1
    what = "what it was to remove may be left behind"  # nothing registered to remove
    if owned:
        what = f"{left} of what it owns left behind" if left else "what it owns removed"
    line = (
        f"memidx: error: the stop {signal.Signals(number).name} asked for did not end within "
        f"{LIMIT:g} s; exiting at once ({what})\n"
    )
    with contextlib.suppress(OSError):
        os.write(2, line.encode())
    os._exit(128 + number)
