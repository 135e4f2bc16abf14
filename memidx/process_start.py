"""Processes read from Linux /proc: the one reader of /proc/<pid>/stat (a process's name, state,
parent and start time), and whether the process a file names by its pid (a lock's token, a
copy's or a file aside's name) is gone, its pid perhaps given to another process since: a busy
machine uses pids again within minutes, and a killed memidx's lock whose pid a new process had
was taken for a live memidx's, kept for good. Told by start times (Linux /proc): the pid's
process started after the file was made is not the one that made it. Elsewhere only a pid no
process has counts as gone.

Raw reads (os.open, os.read): a look at every process, under HEAD's lock, reads ~200 of them,
and Path.read_text's text layer cost ~4x its reads (memidx.git.newcomers)."""

from __future__ import annotations

import os
import time
from pathlib import Path

TICKS = 100  # /proc's starttime unit (USER_HZ, 100 on every Linux)
SLACK = 1.0  # seconds: a start this near the file's making is taken for its maker's
STATE, PARENT, START = 0, 1, 19  # in stat's fields after the command's name
ENDED = ("Z", "X")  # a zombie (not reaped yet) or dead: it holds nothing


def proc_stat(pid: int | str) -> tuple[str, list[str]]:
    """Process `pid`'s command name and the fields of its /proc stat after it (state at
    STATE, parent's pid at PARENT, start in clock ticks since boot at START); ("", []) where
    none is read (no /proc: not Linux; no such process)."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    except OSError:
        return "", []
    try:
        chunks = [os.read(fd, 4096)]
        while chunks[-1]:
            chunks.append(os.read(fd, 4096))
    except OSError:
        return "", []
    finally:
        os.close(fd)
    text = b"".join(chunks).decode("ascii", errors="replace")
    # "pid (comm) state ppid ...": the command's name may hold spaces and parentheses
    comm, closed, rest = text.partition(" (")[2].rpartition(")")
    return (comm, rest.split()) if closed else ("", [])


def process_started(pid: int | str) -> str | None:
    """When process `pid` started (clock ticks since boot, /proc's), None where that cannot be
    read (no /proc: not Linux; no such process). A zombie's too."""
    fields = proc_stat(pid)[1]
    return fields[START] if len(fields) > START and fields[START].isdigit() else None


def process_state(pid: int | str) -> str:
    """Process `pid`'s state letter (`R`, `S`, `T` stopped, `Z` a zombie...); "" where none is
    read."""
    fields = proc_stat(pid)[1]
    return fields[STATE] if fields else ""


def process_ended(pid: int | str) -> bool:
    """Whether process `pid` has ended though its parent has not reaped it yet (a zombie, which
    process_alive counts as running: the system still answers for its pid), where the system
    says (Linux)."""
    return process_state(pid) in ENDED


def running_since(pid: int | str) -> str:
    """When process `pid` started (clock ticks since boot); "" once it ended (a zombie, which
    its parent has not reaped yet, has ended too) or where /proc does not say."""
    fields = proc_stat(pid)[1]
    if len(fields) <= START or fields[STATE] in ENDED or not fields[START].isdigit():
        return ""
    return fields[START]


def uptime() -> float | None:
    """Seconds since boot (/proc/uptime, the clock /proc's start times count on); None without."""
    try:
        fd = os.open("/proc/uptime", os.O_RDONLY)
        try:
            return float(os.read(fd, 128).split()[0])
        finally:
            os.close(fd)
    except (OSError, ValueError, IndexError):
        return None


def started_at(pid: int) -> float | None:
    """When process `pid` started, in seconds since the epoch (time.time()'s clock, to 10 ms);
    None where it cannot be read (no /proc: not Linux; no such process)."""
    ticks, since_boot = process_started(pid), uptime()
    if ticks is None or since_boot is None:
        return None
    return time.time() - since_boot + int(ticks) / TICKS


def made_at(path: Path) -> float:
    """When `path` was made at the latest (its status change: a write, a rename or a link
    changes it; a copy keeps its source's mtime, never its ctime), in seconds since the epoch."""
    found = path.stat()
    return max(found.st_ctime, found.st_mtime)


def owner_gone(pid: int, made: float) -> bool:
    """Whether the process that named itself by `pid` in a file made at `made` is gone: no
    process has that pid, the one that has it has ended (a zombie holds nothing), or it started
    after the file was made (the pid given again). A live pid whose start cannot be read (no
    /proc) is taken for the owner."""
    from memidx.portable import process_alive

    if pid <= 1:  # init's, or none: never a memidx's
        return False
    if not process_alive(pid):
        return True
    if process_ended(pid):
        return True
    started = started_at(pid)
    return started is not None and started > made + SLACK
