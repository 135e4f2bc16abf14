"""When an agent hook's work must be done: its deadline on the clock its process started, with
a short grace for a process slow to start, never past an end the agent itself puts on it."""

from __future__ import annotations

# Seconds of work a hook gets however late its process started (a starved machine, a slow
# disk): the warm recall server answers in a tenth of one, so a late start still recalls, and
# the agent waits at most this past the start
GRACE = 0.5


def work_ends(started: float, now: float, limit: float, cap: float | None = None) -> float:
    """The time.monotonic() by which the work of a hook whose process `started` must answer:
    its `limit` after that start, or GRACE (at most `limit`) after `now` for a start that took
    it, but never past `cap` seconds after the start, where the agent ends the hook itself
    (Claude Code's SessionEnd, ~1.5 s in all: a grace past it was killed there, its gave-up
    line never written)."""
    ends = max(started + limit, now + min(GRACE, limit))
    return ends if cap is None else max(started + limit, min(ends, started + cap))
