"""What is left beside the copies of transcripts hooks began to archive (memidx.agents.
archive_left) and removed when a sessions' folder is listed: the drafts of copies whose writers
were killed, and what was kept beside a copy that is gone (its cuts, its unread mark)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from memidx.agents.copy_cuts import CUTS, cuts_path
from memidx.agents.copy_unread import UNREAD, unread_path
from memidx.drafts import draft_pid
from memidx.memory.archives_left import SUFFIX, copy_of


def remove_left_beside(folder: Path) -> None:
    """Remove the drafts of copies whose writers were killed (a hook cut off inside `begin`:
    up to 64 MiB of the raw transcript, left until that very copy was written again), and
    what was kept beside a copy that is gone (its cuts, its unread mark)."""
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            if _dead_draft(folder, entry.name) or _without_copy(folder, entry.name):
                with contextlib.suppress(OSError):
                    Path(entry.path).unlink()


def _dead_draft(folder: Path, name: str) -> bool:
    """Whether `name` is the draft of a copy (`.<copy>.<pid>.tmp`), or of what is kept beside
    one (`.<copy>.cuts.<pid>.tmp`), whose writer is gone."""
    from memidx.portable import process_alive

    if not name.startswith(".") or SUFFIX + "." not in name or not name.endswith(".tmp"):
        return False
    copy = folder / name[1 : name.rindex(SUFFIX + ".") + len(SUFFIX)]
    for written in (copy, cuts_path(copy), unread_path(copy)):
        if (pid := draft_pid(written, "tmp", name)) is not None:
            return pid != os.getpid() and not process_alive(pid)
    return False


def _without_copy(folder: Path, name: str) -> bool:
    """Whether `name` is kept beside a copy (its cuts, its unread mark) that is gone."""
    for mark in (CUTS, UNREAD):
        copy = name.removesuffix(mark)
        if copy != name and copy_of(copy) is not None:
            return not os.path.lexists(folder / copy)
    return False
