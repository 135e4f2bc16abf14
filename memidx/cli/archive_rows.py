"""What `memidx status` says of the transcripts agents' hooks left to archive
(memidx.memory.archives_left)."""

from __future__ import annotations

from memidx.memory.status import Status
from memidx.text import counted, display


def archive_rows(status: Status) -> list[tuple[str, str]]:
    """The rows of the copies left, and of those kept aside torn."""
    rows: list[tuple[str, str]] = []
    if status.archives_left:  # a PreCompact cut off mid-archive: its session's next event files it
        left = counted(status.archives_left, "transcript")
        rows.append(("agent hook", f"{left} to archive, left by a hook cut off before a "
                     "compaction (filed by the agent's next hook events, or now by "
                     "memidx agent finish-archives)"))  # fmt: skip
    for path in status.archives_torn:  # the person's transcript: kept, never deleted
        rows.append(("agent hook", f"{display(str(path))}: a transcript copy torn (its hash "
                     "differs from its name's), kept aside unfiled: the agent's own transcript "
                     "file may still hold it (file that with memidx archive-transcript), then "
                     "delete this copy"))  # fmt: skip
    return rows
