"""What a piece of work costs in this process's CPU time, for tests that bound it.

`make test` runs two test processes per core beside other engineers' work: the wall clock
counts their turns, this process's CPU time only its own, yet a busy neighbour still slows it
(shared caches, a core's other thread). So a test bounds a ratio, never seconds: the work
against a baseline measured just before it (a smaller run of the same work, or plain work of
the same size), the least of a few such pairs. A neighbour's burst inflates one measure, never
the least of several; an algorithmic defect (quadratic: 256x for 16x the input) inflates all.
"""

from __future__ import annotations

import time
from collections.abc import Callable

ENOUGH = 1.0  # seconds: a run this long already shows the defect; more would only add time
FLOOR = 1e-4  # seconds: a baseline read as less is timer noise


def least_cpu(work: Callable[[], object], runs: int = 3) -> float:
    """The least CPU time of `runs` runs of work, or of those up to the first over ENOUGH."""
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        work()
        spent = time.process_time() - start
        best = min(best, spent)
        if spent > ENOUGH:
            break
    return best


def least_ratio(
    work: Callable[[], object],
    baseline: Callable[[], object],
    *,
    below: float,
    pairs: int = 3,
    runs: int = 3,
) -> tuple[float, list[float]]:
    """The least ratio of work's CPU time to baseline's measured just before it, over up to
    `pairs` pairs (each side the least of `runs`), stopping at the first under `below`; with
    every ratio measured, for the message of a failing test."""
    ratios: list[float] = []
    for _ in range(pairs):
        base = least_cpu(baseline, runs)
        ratios.append(least_cpu(work, runs) / max(base, FLOOR))
        if ratios[-1] < below:
            break
    return min(ratios), [round(ratio, 1) for ratio in ratios]
