"""The recall servers' log, `.memidx/agents/recall-server.log`: what a server says on its way out
(an error it exits on), appended by every server a hook starts. Nothing read it down, so a
server failing at every start (a model that cannot load, an index of a newer memidx) grew it
a few lines a minute for as long as prompts came. Past MAX_LOG bytes its older half goes, as
a server is started (none writes to it then: a running server keeps hooks from starting one)."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from memidx.drafts import read_up_to, replace_durably
from memidx.portable import OPEN_AS_IS

LOG_NAME = "recall-server.log"
MAX_LOG = 256 * 1024  # bytes: some thousand lines, days of a server failing once a minute


def bounded(log: Path) -> None:
    """Keep the last lines of `log`, about half of MAX_LOG, when it holds more than MAX_LOG
    bytes (a draft renamed over it); a FIFO, a link or a folder there is left as it is."""
    with contextlib.suppress(OSError):
        fd = os.open(log, OPEN_AS_IS)
        try:
            found = os.fstat(fd)
            if not stat.S_ISREG(found.st_mode) or found.st_size <= MAX_LOG:
                return
            # a byte before the half kept: whether that half begins a line
            os.lseek(fd, found.st_size - MAX_LOG // 2 - 1, os.SEEK_SET)
            tail = read_up_to(fd, MAX_LOG // 2 + 1)
        finally:
            os.close(fd)
        # from a line's start: none in it (one long line) keeps nothing, not half of one
        kept = tail[tail.find(b"\n") + 1 :] if b"\n" in tail else b""
        replace_durably(log, kept, "tmp", durable=False)
