"""Progress on a terminal; silence everywhere else."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

Progress = Callable[[int, int], None]  # called with (done, total) as long work goes on


class ProgressBar:
    """A one-line progress display on stderr, shown only when stderr is a terminal."""

    def __init__(
        self, label: str, stream: TextIO | None = None, enabled: bool | None = None
    ) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self._last = 0.0
        self._shown = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if done < total and now - self._last < 0.1:
            return
        self._last = now
        width = 30
        filled = width * done // total if total else width
        percent = 100 * done // total if total else 100
        bar = "#" * filled + "-" * (width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {done:,}/{total:,} {percent:3d}%")
        self.stream.flush()
        self._shown = True

    def close(self) -> None:
        if self._shown:
            self.stream.write("\n")
            self.stream.flush()
            self._shown = False
