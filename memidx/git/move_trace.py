"""An opt-in timing trace of memidx's move of HEAD (memidx.git.publish.move_head): with
MEMIDX_MOVE_TRACE naming a file, each move appends one line there, the milliseconds since it
took `.git/index.lock` at each step it passed and the path it took (fast: memidx renamed its
copy; shell: the shell's git command ran on git's index), to find what holds the lock. Off
(no clock read, no file) unless the variable is set."""

from __future__ import annotations

import os
import stat
import time

_steps: list[tuple[str, float]] = []


def mark(step: str) -> None:
    """Note that the move reached `step` now (nothing when the trace is off). "locked" starts
    the steps anew: memidx.git.index_copy takes the lock too, writing no line, and a move's
    line counted from that earlier swap's lock."""
    if os.environ.get("MEMIDX_MOVE_TRACE"):
        if step == "locked":
            _steps.clear()
        _steps.append((step, time.monotonic()))


def write(path_taken: str) -> None:
    """Append this move's steps to the trace file and forget them (nothing when it is off).
    Only a regular file is written: a FIFO nobody reads held the move, and the index lock of
    a killed shell it then lets go, for ever."""
    trace = os.environ.get("MEMIDX_MOVE_TRACE")
    steps, _steps[:] = list(_steps), []
    if not trace or not steps:
        return
    start = next((at for step, at in steps if step == "locked"), steps[0][1])
    line = " ".join(f"{step}={(at - start) * 1000:.1f}" for step, at in steps)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
    try:
        held = os.open(trace, flags, 0o644)
    except (OSError, ValueError):
        return
    try:
        if stat.S_ISREG(os.fstat(held).st_mode):
            os.write(held, f"{path_taken} {line}\n".encode())
    except OSError:
        return
    finally:
        os.close(held)
