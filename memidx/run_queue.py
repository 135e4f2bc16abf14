"""How long a thread of this process has waited for a core: ready to run, on a run queue,
while others ran. A thread starved of a core (a loaded machine, busy neighbours pinned to
its CPU) spends its time so; one blocked on a lock, a read or a wedge does not."""

from __future__ import annotations

from pathlib import Path

PROC_TASKS = Path("/proc/self/task")  # Linux: each thread's schedstat


def run_queue_wait(thread: int) -> float | None:
    """Seconds thread `thread` of this process (its native id, threading.get_native_id()) has
    waited on a run queue since it began: the second field of Linux's
    /proc/self/task/<thread>/schedstat (ns); None where it cannot be read (no /proc, another
    system, the thread gone)."""
    try:
        fields = (PROC_TASKS / str(thread) / "schedstat").read_bytes().split()
        return int(fields[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def runnable(thread: int) -> bool:
    """Whether thread `thread` of this process runs or waits for a core right now (state R in
    /proc/self/task/<thread>/stat): its wait is counted only once it gets the core; False where
    it cannot be read."""
    try:
        stat = (PROC_TASKS / str(thread) / "stat").read_bytes()
        end = stat.rindex(b")")  # past the thread's name, which may hold anything
        return stat[end + 2 : end + 3] == b"R"
    except (OSError, ValueError):
        return False
