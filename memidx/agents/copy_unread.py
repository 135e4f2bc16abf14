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

from memidx.drafts import read_own, replace_durably

UNREAD = ".unread"  # beside the copy: <copy>.unread


def unread_path(copy: Path) -> Path:
    return copy.with_name(copy.name + UNREAD)


def first_said(copy: Path, why: str) -> bool:
    """Whether `copy`, unreadable for `why`, is not yet said as it is now; it is marked said.
    True too where no mark can be kept (a folder that cannot be written): said each time."""
    try:
        now = copy.lstat()
    except OSError:
        return True
    mark = json.dumps(
        [now.st_dev, now.st_ino, now.st_mode, now.st_size, now.st_mtime_ns, now.st_ctime_ns, why]
    ).encode()
    with contextlib.suppress(OSError):
        if read_own(unread_path(copy), len(mark)) == mark:
            return False
    with contextlib.suppress(OSError):
        replace_durably(unread_path(copy), mark, "tmp", durable=False)
    return True


def forget_unread(copy: Path) -> None:
    """Remove the mark beside `copy` (it is gone, or filed)."""
    with contextlib.suppress(OSError):
        unread_path(copy).unlink(missing_ok=True)
