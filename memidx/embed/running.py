"""The mark a background embed keeps while it runs (`.memidx/embed.running`: its pid and,
where the system says (Linux), when that process started, so that its pid given again to
another process, as after a reboot, is not taken for the embedder). One killed mid-run (a
reboot, the OOM killer, a closed laptop's kill) leaves it behind, which is how `memidx status`
tells the vectors were cut off and the next session start restarts it.

Lean: read by status and by agents' session-start hook, so only the standard library."""

from __future__ import annotations

import os
from collections.abc import Generator
from contextlib import contextmanager, suppress
from pathlib import Path

from memidx.portable import process_alive

MARK = "embed.running"


def running_path(state_dir: Path) -> Path:
    return state_dir / MARK


@contextmanager
def embedding(state_dir: Path) -> Generator[None]:
    """Keep the mark for the block: left behind only when the process is killed (an error is
    reported by the embed error trace instead, and removes it)."""
    path = running_path(state_dir)
    partial = path.with_name(f".{MARK}.{os.getpid()}.partial")
    started = process_started(os.getpid())
    mark = f"{os.getpid()}" if started is None else f"{os.getpid()} {started}"
    partial.write_text(mark + "\n", encoding="ascii")  # whole, or not there at all
    partial.replace(path)
    try:
        yield
    finally:
        forget_mark(state_dir, mine=True)


def cut_off(state_dir: Path) -> int | None:
    """The pid of a background embed that was killed mid-run (its mark is there, its process
    gone, or its pid now another process's); None when none was, or it still runs. A mark that
    names no pid was cut off too."""
    try:
        text = running_path(state_dir).read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    pid, _, started = text.strip().partition(" ")
    try:
        number = int(pid)
    except ValueError:
        return 0
    if not process_alive(number):
        return number
    now = process_started(number)
    return number if started and now is not None and now != started else None


def process_started(pid: int) -> str | None:
    """When process `pid` started (clock ticks since boot, /proc's), None where that cannot be
    read (no /proc: not Linux; no such process)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()  # after the command's name, which may hold spaces
    return fields[19] if len(fields) > 19 and fields[19].isdigit() else None


def forget_mark(state_dir: Path, *, mine: bool = False) -> None:
    """Remove the mark: this process's own (`mine`), else only a dead embedder's (a live one
    keeps its own)."""
    path = running_path(state_dir)
    if mine:
        with suppress(OSError):
            if path.read_text(encoding="ascii").split()[:1] != [str(os.getpid())]:
                return  # a later embedder's (this one's was replaced): not this one's to remove
    elif cut_off(state_dir) is None:
        return
    with suppress(OSError):
        path.unlink()
