"""A copy left to archive that cannot be read (memidx.agents.archive_left), said once: each
hook event that could finish it judged it again and said it again in the hooks' trace (each
event of each other session of its agent with 6 s to spare), which grew by the same line and
buried the others under it. A mark beside it (`<copy>.unread`) holds what the copy was when it
was said (its device, inode, mode, size and times) and why it could not be read: it is said
again only once either changed (a copy made readable and broken again, another error)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from memidx.drafts import PRIVATE, read_own, replace_durably
from memidx.process_start import note_clock

UNREAD = ".unread"  # beside the copy: <copy>.unread
MOST = 64 * 1024  # the most a mark is read of (its why: an error's words)


def unread_path(copy: Path) -> Path:
    return copy.with_name(copy.name + UNREAD)


def first_said(copy: Path, why: str) -> bool:
    """Whether `copy`, unreadable for `why`, is not yet said as it is now; it is marked said.
    True too where no mark can be kept (a folder that cannot be written): said each time."""
    try:
        mark = json.dumps([*_as_is(copy), why]).encode()
    except OSError:
        return True
    with contextlib.suppress(OSError):
        if read_own(unread_path(copy), len(mark)) == mark:
            return False
    with contextlib.suppress(OSError):
        note_clock()  # before the draft named by this pid (copy_sweep judges it by it)
        replace_durably(unread_path(copy), mark, "tmp", durable=False, mode=PRIVATE)
    return True


def said_as_is(copy: Path) -> bool:
    """Whether `copy` was said unreadable as it is now (unchanged since its mark): the hooks
    of other sessions pass it over unread (memidx.agents.finish_one). Each read it again at
    each event, to its end before its text was found no UTF-8 (three times, ~3 s for 128 MiB),
    until a person moved it away: finish-archives and its own session's events still try it."""
    try:
        mark: object = json.loads(read_own(unread_path(copy), MOST) or b"null")
        return isinstance(mark, list) and mark[:-1] == _as_is(copy)
    except (OSError, ValueError):
        return False


def _as_is(copy: Path) -> list[int]:
    """What `copy` is now: its device, inode, mode, size and times (OSError when gone)."""
    now = copy.lstat()
    return [now.st_dev, now.st_ino, now.st_mode, now.st_size, now.st_mtime_ns, now.st_ctime_ns]


def forget_unread(copy: Path) -> None:
    """Remove the mark beside `copy` (it is gone, or filed)."""
    with contextlib.suppress(OSError):
        unread_path(copy).unlink(missing_ok=True)
