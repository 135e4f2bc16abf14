"""A clock for the recall modules' `time` that only the test moves: the wall clock and
time.monotonic(), so a test can step the wall clock (NTP setting it) while the other runs on."""

from __future__ import annotations

import contextlib
import time


class Clock:
    """`time` for a module under test: time(), monotonic() and sleep(), which only `passes`
    (and sleep) moves."""

    def __init__(self) -> None:
        self.wall, self.boot = time.time(), time.monotonic()

    def time(self) -> float:
        return self.wall

    def monotonic(self) -> float:
        return self.boot

    def sleep(self, seconds: float) -> None:
        self.passes(seconds)

    def passes(self, seconds: float, stepped: float = 0.0) -> None:
        """`seconds` pass; the wall clock is also stepped by `stepped` (NTP setting it)."""
        self.boot += seconds
        self.wall += seconds + stepped


class Ticks:
    """time.monotonic() at `now`, which only the test (and what it gives: a read, a look)
    moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


class LookEnds:
    """`time` for memidx.portable: another process's look at a lock (`look`, holding it) ends
    as the server under test first waits for that lock."""

    monotonic = staticmethod(time.monotonic)

    def __init__(self, look: contextlib.ExitStack) -> None:
        self.look = look

    def sleep(self, seconds: float) -> None:
        self.look.close()
        time.sleep(seconds)
