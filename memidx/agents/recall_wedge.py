"""Replacing a wedged recall server. One that takes a hook's connection and never acknowledges
it (stopped by SIGSTOP, or hung) keeps its lock, so no other server starts: every prompt would
recall nothing from it until someone killed it. The first hook that finds it so marks it
suspect (`recall.suspect`, naming its pid and when it was marked), which any word from the
server heard since clears (never one heard before it: a hook acknowledged before the server
stopped, answered or let go only later, cleared a mark made meanwhile); a hook that finds it
so again, SUSPECT_AFTER to SUSPECT_FOR seconds later, ends it, only once it is
proven this memory's recall server: the pid in `recall.pid` (which only the lock's holder
writes), the process listening on the memory's socket (the kernel says which) and the
server's lock held. Its lock then goes with it, and the hook starts a new server, which takes
the socket's name: never two that answer.

When is on `time.monotonic()`, the clock every process of a boot shares (CLOCK_MONOTONIC on
Linux) and that never steps: on the wall clock, stepped back (NTP), a server heard from after
the mark seemed heard before it, and the next stall ended it. A mark outlives no server (the
next one removes it as it starts: recall_server.serve), so none is read in another boot."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from memidx.agents.recall_client import starting
from memidx.agents.recall_server import PID_NAME, SUSPECT, SUSPECT_AFTER, server_folder
from memidx.config import Config
from memidx.portable import OPEN_AS_IS
from memidx.suspects import mark_or_end

__all__ = ["SUSPECT", "SUSPECT_AFTER", "acknowledged", "found_wedged"]
# A server busy with 20 prompts at once acknowledges each within milliseconds (recall_loop):
# one that did not in ACK_WAIT twice, SUSPECT_AFTER (1 s) apart or more, is not coming back.
# Hooks at the same moment (a stall of the machine) mark it once; a mark older than
# SUSPECT_FOR is forgotten.
SUSPECT_FOR = 120.0
GONE_WAIT = 0.2  # seconds for an ended server's lock to go before the hook starts another
MAX_MARK = 128  # bytes read of a mark or of recall.pid: a pid and two times


def found_wedged(config: Config, pid: object) -> bool:
    """Mark the server `pid` (the process listening on the memory's socket, which accepted a
    hook and did not acknowledge it) suspect, or end it when it was suspect already and is
    provably this memory's recall server; True when it was ended."""
    folder = server_folder(config)
    if not isinstance(pid, int) or _recorded(folder / PID_NAME) != pid or not starting(config):
        return False  # not the server recall.pid names while holding its lock: not memidx's
    mark = folder / SUSPECT
    named, made = _marked(mark)
    age = time.monotonic() - made if named == pid and made is not None else None
    # a first sign kept until the next, with the wall clock's time too, for an older memidx;
    # made whole (repr): rounded, a word heard before seemed after
    text = f"{pid}\n{time.time():.6f}\n{time.monotonic()!r}\n"
    return mark_or_end(
        mark, pid, age, text, after=SUSPECT_AFTER, lasts=SUSPECT_FOR,
        held=lambda: starting(config), gone_wait=GONE_WAIT, clock=time,
    )  # fmt: skip


def acknowledged(config: Config, heard: object) -> None:
    """Forget the mark when the server was `heard` from (recall_server.HEARD) after it was
    made: a stall of the machine made it, and only two stalls with no word from the server
    between them end a server (~20 us). A mark made since is kept: that hook's wait began
    before the server stopped, and says nothing of it now. Only the mark read is removed: one
    another hook wrote meanwhile (after one more cleared it) is taken aside, looked at, and put
    back when it was made since."""
    mark = server_folder(config) / SUSPECT
    if not isinstance(heard, float) or not _made_before(mark, heard):
        return
    taken = mark.with_name(f"{SUSPECT}.{os.getpid()}")  # this hook's alone
    try:
        mark.replace(taken)  # the mark read, or one written since: looked at again
    except OSError:
        return
    if not _made_before(taken, heard):  # put back, never over one written since it was taken
        with contextlib.suppress(OSError):  # (no hard link there: lost, and the next stall marks)
            os.link(taken, mark)
    with contextlib.suppress(OSError):
        taken.unlink()


def _made_before(mark: Path, heard: float) -> bool:
    made = _marked(mark)[1]
    return made is not None and heard > made


def _marked(mark: Path) -> tuple[int | None, float | None]:
    """The pid a mark names and when it was made, on time.monotonic() (a mark of an older
    memidx: its wall clock's time, or its pid alone and when it was last written, made so)."""
    read = _read(mark)
    if read is None:
        return None, None
    text, written = read
    try:
        lines = text.split()
        pid = int(lines[0])
    except (ValueError, IndexError):
        return None, None
    try:
        if len(lines) > 2:
            return pid, float(lines[2])
        wall = float(lines[1]) if len(lines) > 1 else written
        return pid, time.monotonic() - (time.time() - wall)
    except ValueError:
        return pid, None


def _recorded(path: Path) -> int | None:
    read = _read(path)
    try:
        return int(read[0].strip()) if read is not None else None
    except ValueError:
        return None


def _read(path: Path) -> tuple[str, float] | None:
    """The first MAX_MARK bytes of `path` and when it was last written; None when it cannot
    be read. As it is: read in place, a FIFO there was waited on for a writer that never
    comes, by every hook that found the server wedged or answering, and nothing recalled."""
    try:
        fd = os.open(path, OPEN_AS_IS)
    except OSError:
        return None
    try:
        return os.read(fd, MAX_MARK).decode("utf-8", "replace"), os.fstat(fd).st_mtime
    except OSError:
        return None
    finally:
        os.close(fd)
