"""Whether a person's `git pull` is still before its merge or rebase, read from /proc: the look
memidx.git.late_pull makes before it puts HEAD back for that pull."""

from __future__ import annotations

import time

from memidx.git.newcomers import read_proc

EXEC_WAIT, EXEC_PAUSE = 1.0, 0.005  # seconds a pull's child in its exec is looked at again


def fetching(pid: str, wait: float | None = None) -> bool:
    """Whether git pull `pid` has not begun its merge or rebase: no child, or only its fetch.
    A child in its exec (forked, the pull's own command line; or none yet) may be either:
    looked at again until `wait` seconds passed. Taken for the merge, the fetch's start (the
    look right after the move sees a pull that just read HEAD there) left the pull to fail."""
    until = time.monotonic() + (EXEC_WAIT if wait is None else wait)  # EXEC_WAIT read now
    for _ in range(10_000):  # bounded by `until`; the count only bounds the loop
        try:
            own = read_proc(f"/proc/{pid}/cmdline")
            children = read_proc(f"/proc/{pid}/task/{pid}/children").split()
        except OSError:
            return False  # ended, or not known: nothing put back
        said = [_line(child.decode()) for child in children]
        if any(b"fetch" not in line.split(b"\0") and not _in_exec(line, own) for line in said):
            return False  # its merge, its rebase
        if all(b"fetch" in line.split(b"\0") for line in said):
            return True
        if time.monotonic() > until:
            return False  # still in its exec: not known
        _look_again()
    return False


def _line(pid: str) -> bytes:
    """Process `pid`'s command line; a fetch's once it ended (as a zombie, none: in exec)."""
    try:
        return read_proc(f"/proc/{pid}/cmdline")
    except OSError:
        return b"\0fetch"


def _in_exec(line: bytes, own: bytes) -> bool:
    """Whether a child of the pull's whose command line is `line` has not exec'd its program
    yet: forked, it has the pull's (`own`); in its exec, none."""
    return line == own or not line.strip(b"\0")


def _look_again() -> None:
    time.sleep(EXEC_PAUSE)
