"""What an agent's sessions folder holds of the person's words is the user's alone (mode 0600,
memidx.drafts.PRIVATE): a session's state (the prompt a Codex or Cursor hook
keeps, as typed), a transcript's copy left to archive and one kept aside torn, a copy's cuts
and its unread mark. memidx writes each so whatever the umask; an older memidx wrote them 0644
under a umask of 022, and one never written again stayed readable by every user of the machine
(a session not taken up again keeps its state 30 days, a copy waiting its cuts; a torn copy
stays until the person deletes it; an unread mark is said once). Each session start (Hermes's
session end: it has none), which lists the folder already (memidx.agents.session.
prune_sessions), takes their group's and others' bits away."""

from __future__ import annotations

import contextlib
import os
import stat
import sys

from memidx.memory.archives_left import copy_of, torn_of
from memidx.portable import OPEN_AS_IS

BESIDE = (".cuts", ".unread")  # kept beside a copy (memidx.agents.copy_cuts, copy_unread)


def holds_words(name: str) -> bool:
    """Whether `name` is memidx's own file of a person's words in a sessions folder."""
    if name.endswith(".json") or copy_of(name) is not None or torn_of(name) is not None:
        return True
    return any(name.endswith(mark) and copy_of(name.removesuffix(mark)) for mark in BESIDE)


def make_private(entry: os.DirEntry[str]) -> None:
    """Take the group's and others' permissions off the file `entry` names, read as it is (a
    link is not followed, a FIFO not waited on); its owner's stay as they are (a copy the person
    made read-only stays so). Never raises."""
    if sys.platform == "win32":  # pragma: no cover - no such bits there
        return
    with contextlib.suppress(OSError):
        if not entry.stat(follow_symlinks=False).st_mode & 0o077:
            return  # the hot path: the stat prune_sessions reads anyway
        fd = os.open(entry.path, OPEN_AS_IS)
        try:
            found = os.fstat(fd)
            if stat.S_ISREG(found.st_mode) and found.st_mode & 0o077:
                os.fchmod(fd, stat.S_IMODE(found.st_mode) & ~0o077)
        finally:
            os.close(fd)
