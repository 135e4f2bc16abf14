"""Phase timings for `memidx search --timings` (where a cold search spends its time)."""

from __future__ import annotations

import time
from collections.abc import Generator
from contextlib import contextmanager

from memidx import STARTED

__all__ = ["STARTED", "Stopwatch"]


class Stopwatch:
    """Accumulates milliseconds per named phase."""

    def __init__(self) -> None:
        self.phases: dict[str, float] = {}

    @contextmanager
    def phase(self, name: str) -> Generator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - start)

    def add(self, name: str, seconds: float) -> None:
        self.phases[name] = self.phases.get(name, 0.0) + seconds * 1000

    def rounded(self) -> dict[str, float]:
        return {name: round(ms, 1) for name, ms in self.phases.items()}
