"""A stop signal ends a stopped_by_signals block as a normal stop does: its `finally` clauses
run whole, even when the signal comes again meanwhile."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

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


def test_a_signal_sent_again_as_the_block_ends_leaves_its_end_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The watcher signals the main thread again (a stop swallowed earlier) just as the block
    ends: Stopped was raised inside the block's own end, which then never put the signal
    handlers back (SIGTERM kept raising Stopped outside any block)."""
    monkeypatch.setattr(stopping, "GRACE", 0.0)
    before = signal.getsignal(signal.SIGTERM)
    close = stopping._Watcher.close  # pyright: ignore[reportPrivateUsage]

    def late(self: object) -> None:
        os.kill(os.getpid(), signal.SIGTERM)  # sent before the watcher saw it close
        close(self)  # type: ignore[arg-type]

    monkeypatch.setattr(stopping._Watcher, "close", late)  # pyright: ignore[reportPrivateUsage]
    with stopped_by_signals() as stop:
        _signal_and_wait(signal.SIGTERM)

    assert (stop.code, signal.getsignal(signal.SIGTERM)) == (143, before)


class _Finalized:
    """An object whose `__del__` is where the stop signal comes (a stream or transport closed
    as a session ends): Python prints and drops any exception raised there."""

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):  # the handler raises Stopped here, inside __del__
            time.sleep(0.001)


def test_a_stop_signal_that_lands_in_a_finalizer_still_ends_the_block() -> None:
    """Stopped raised inside a `__del__` was swallowed there ("Exception ignored in"): the
    shared server served on until the 30 s hard exit ended it, its socket left behind."""
    reached: list[str] = []
    with stopped_by_signals() as stop:
        finalized = _Finalized()
        del finalized
        time.sleep(5)  # raised again here, at once
        reached.append("served on")

    assert (stop.code, reached) == (143, [])


# SIGTERM arriving just as a weakref callback of importlib has taken the import lock, before
# its `try` (seen in the shared server's start-up at a load of ~8): the callback swallowed
# Stopped and the lock stayed taken, so the reader thread's next import waited for ever and the
# stop, waiting for that thread, never ended.
IMPORT_RACE = """
import importlib._bootstrap as bootstrap, os, signal, sys, threading, time
from memidx.stopping import stopped_by_signals

real = bootstrap._imp

class Interrupted:
    def __getattr__(self, name):
        return getattr(real, name)

    def acquire_lock(self):
        real.acquire_lock()
        os.kill(os.getpid(), signal.SIGTERM)  # its handler runs here, the lock taken

reached = []
with stopped_by_signals() as stop:
    lock = bootstrap._get_module_lock("memidx_no_such_module")
    bootstrap._imp = Interrupted()
    try:
        del lock  # its weakref callback takes the import lock
    finally:
        bootstrap._imp = real
    for _ in range(500):  # a server's loop wakes now and then
        time.sleep(0.01)
    reached.append("slept")
importer = threading.Thread(target=lambda: __import__("colorsys"), daemon=True)
importer.start()
importer.join(10)
print(stop.code, reached, "imported" if not importer.is_alive() else "hung", flush=True)
os._exit(0)
"""


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="POSIX signals")
def test_a_stop_signal_inside_the_import_machinery_is_raised_once_out_of_it() -> None:
    import subprocess
    import sys

    argv = [sys.executable, "-c", IMPORT_RACE]
    done = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "143 [] imported", done.stderr
    assert "Exception ignored" not in done.stderr


# The main thread waits in the import machinery for a module another thread imports, and that
# thread waits for the stop: the signal, acted on again every 50 ms once out of the imports,
# never was, and the process never ended.
STUCK = """
import builtins, os, signal, sys, threading, time
from memidx import stopping
from memidx.stopping import stopped_by_signals

stopping.LIMIT = 2.0
builtins.STOPPED = threading.Event()
sys.path.insert(0, sys.argv[1])
with stopped_by_signals() as stop:
    try:
        threading.Thread(target=lambda: __import__("waits_for_the_stop"), daemon=True).start()
        time.sleep(0.5)
        threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGTERM)).start()
        import waits_for_the_stop
    finally:
        builtins.STOPPED.set()
print("the import ended", flush=True)
"""


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="POSIX signals")
def test_a_stop_that_cannot_end_exits_at_once_after_the_limit(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "waits_for_the_stop.py").write_text("import builtins\nbuiltins.STOPPED.wait()\n")
    started = time.monotonic()
    argv = [sys.executable, "-c", STUCK, str(tmp_path)]
    done = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (143, ""), done.stderr
    assert time.monotonic() - started < 20
    assert done.stderr == (
        "memidx: error: the stop SIGTERM asked for did not end within 2 s; exiting at once "
        "(what it was to remove may be left behind)\n"
    )
