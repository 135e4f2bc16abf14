"""Whether the process a file names by its pid (a lock's token, a copy's or a file aside's
name) is gone, its pid perhaps given to another process since: a busy machine uses pids again
within minutes, and a killed memidx's lock whose pid a new process had was taken for a live
memidx's, kept for good. Told by start times (Linux /proc): the pid's process started after the
file was made is not the one that made it. Elsewhere only a pid no process has counts as gone."""

from __future__ import annotations

import time
from pathlib import Path

TICKS = 100  # /proc's starttime unit (USER_HZ, 100 on every Linux)
SLACK = 1.0  # seconds: a start this near the file's making is taken for its maker's


def started_at(pid: int) -> float | None:
    """When process `pid` started, in seconds since the epoch (time.time()'s clock, to 10 ms);
    None where it cannot be read (no /proc: not Linux; no such process)."""
    fields = _stat(pid)
    try:
        uptime = float(Path("/proc/uptime").read_text(encoding="ascii").split()[0])
    except (OSError, ValueError, IndexError):
        return None
    if len(fields) < 20 or not fields[19].isdigit():
        return None
    return time.time() - uptime + int(fields[19]) / TICKS


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
    fields = _stat(pid)
    if fields[:1] in (["Z"], ["X"]):
        return True
    started = started_at(pid)
    return started is not None and started > made + SLACK


def _stat(pid: int) -> list[str]:
    """The fields of /proc's stat of process `pid` from its state on ([] where none is read)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return []
    return stat.rpartition(")")[2].split()  # after the command's name, which may hold spaces
