"""Timing helpers: medians and percentiles of repeated runs, and new-process timings."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from tests.helpers import clean_env


class CommandFailed(RuntimeError):
    """A command a benchmark section depends on failed: the section stops, showing its stderr,
    rather than printing figures measured on a half-built workspace."""

    def __init__(self, args: Sequence[str], code: int, stderr: str) -> None:
        tail = stderr.strip() or "(nothing on stderr)"
        super().__init__(f"{' '.join(args)} exited {code}:\n{tail}")


def percentile(values: Sequence[float], p: float) -> float:
    """The p-th percentile (nearest rank) of values."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def timed_process(args: Sequence[str], cwd: Path, **env: str) -> tuple[float, str]:
    """Wall time in seconds of one new process, and its stdout; raises if it fails."""
    start = time.perf_counter()
    done = subprocess.run(
        list(args),
        cwd=cwd,
        env=clean_env(**{"MEMIDX_ROOT": str(cwd), **env}),  # memidx answers for `cwd`
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise CommandFailed(args, done.returncode, done.stderr)
    return elapsed, done.stdout


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"
