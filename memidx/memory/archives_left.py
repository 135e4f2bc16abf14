"""The transcripts agents' hooks began to archive before a compaction and did not finish (cut
off at their deadline): memidx.agents.archive_left keeps each beside its session's state until
its last part is filed; `memidx status` counts them."""

from __future__ import annotations

import contextlib
from pathlib import Path

SUFFIX = ".archive"  # beside a session's state (<state>/agents/<agent>/sessions/<id>.json)


def archives_left(state_dir: Path) -> int:
    """How many transcripts hooks began to archive and did not finish, in every agent's
    sessions."""
    with contextlib.suppress(OSError):
        return sum(1 for _ in (state_dir / "agents").glob(f"*/sessions/*{SUFFIX}"))
    return 0
