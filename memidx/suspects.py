"""Ending a server found not answering, on a second finding and never on one: the rule the
shared MCP server's fronts (memidx.mcp.hung) and the recall server's hooks
(memidx.agents.recall_wedge) share. Each caller first proves the process is its memory's
server (its record, the socket's peer, its lock), reads its own mark, and passes its clock
(time.monotonic and time.sleep: a test's stands in for the system's)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType


def mark_or_end(
    mark: Path,
    pid: int,
    age: float | None,
    text: str,
    *,
    after: float,
    lasts: float,
    held: Callable[[], bool],
    gone_wait: float,
    clock: ModuleType,
) -> bool:
    """A first finding of `pid` (no mark of it, `age` None, or one older than `lasts` s or
    from the future) writes `text` at `mark`, renamed over it (written in place, a FIFO there
    was waited on for a reader, a link written through); a second one, `after` s or more since,
    ends `pid`, removes the mark and waits `gone_wait` s at most while `held()` (its lock).
    True when it was ended."""
    if age is None or not 0 <= age <= lasts:
        from memidx.drafts import replace_durably

        with contextlib.suppress(OSError):
            replace_durably(mark, text.encode("ascii"), "tmp", durable=False)
        return False
    if age < after:
        return False
    from memidx.portable import kill

    try:
        kill(pid)
    except OSError:
        return False  # gone meanwhile, or not ours to signal
    mark.unlink(missing_ok=True)
    gone = clock.monotonic() + gone_wait
    while held() and clock.monotonic() < gone:
        clock.sleep(0.01)
    return True
