"""The mark a background embed keeps while it runs (`.memidx/embed.running`: its pid and,
where the system says (Linux), when that process started, so that its pid given again to
another process, as after a reboot, is not taken for the embedder). One killed mid-run (a
reboot, the OOM killer, a closed laptop's kill) leaves it behind, which is how `memidx status`
tells the vectors were cut off and the next session start restarts it.

Its second line counts the runs cut off in a row that embedded nothing (this one included, set
back to 0 once it commits a batch): an embed the OOM killer ends at every start runs RESTARTS
times in all (restarted RESTARTS - 1 times), not at every session start for ever; a run that
completes, or `memidx embed`, removes the mark and so the count.

Lean: read by status and by agents' session-start hook, so only the standard library."""

from __future__ import annotations

import os
from collections.abc import Callable, Generator
from contextlib import contextmanager, suppress
from pathlib import Path

from memidx.drafts import read_own, replace_durably
from memidx.portable import process_alive
from memidx.process_start import process_ended, process_started

MARK = "embed.running"
RESTARTS = 3  # cut off this many times in a row without progress: no more automatic restarts
MAX_MARK = 256  # bytes: a pid, a start time and a count (a mark past it is none)


def running_path(state_dir: Path) -> Path:
    return state_dir / MARK


@contextmanager
def embedding(state_dir: Path, *, durable: bool = True) -> Generator[Callable[[], None]]:
    """Keep the mark for the block: left behind only when the process is killed (an error is
    reported by the embed error trace instead, and removes it). Yields what to call once a
    batch is committed: progress, which sets the count of fruitless runs back. `durable` (the
    fsync setting): the mark is synced, so the power loss that cuts a run off keeps it."""
    path = running_path(state_dir)
    started = process_started(os.getpid())
    me = f"{os.getpid()}" if started is None else f"{os.getpid()} {started}"
    fruitless = cut_off_runs(state_dir) + 1  # as many as that, should this one be cut off too
    _write_mark(path, me, fruitless, durable)
    progressed = False

    def progress() -> None:
        nonlocal progressed
        if not progressed:
            progressed = True
            _write_mark(path, me, 0, durable)

    try:
        yield progress
    finally:
        forget_mark(state_dir, mine=True)


def _write_mark(path: Path, me: str, fruitless: int, durable: bool) -> None:
    """Whole, or not there at all; a mark's partial file an embedder killed left is removed."""
    replace_durably(path, f"{me}\n{fruitless}\n".encode("ascii"), "partial", durable=durable)


def _read_mark(state_dir: Path) -> tuple[int, str, int] | None:
    """The mark's pid (0 for none readable), its process's start time ("" when not given) and
    its count of fruitless runs (1 when not given, as an older memidx wrote it); None when
    there is no mark, nor one that is a regular file of at most MAX_MARK bytes: read in place,
    a FIFO there was waited on for ever, by the session-start hook and `memidx status`."""
    data = read_own(running_path(state_dir), MAX_MARK)
    if data is None:
        return None
    text = data.decode("ascii", errors="replace")
    first, _, rest = text.strip().partition("\n")
    pid, _, started = first.strip().partition(" ")
    count = rest.strip()
    return (
        int(pid) if pid.isdigit() else 0,
        started.strip(),
        int(count) if count.isdigit() else 1,
    )


def cut_off(state_dir: Path) -> int | None:
    """The pid of a background embed that was killed mid-run (its mark is there, its process
    gone, or its pid now another process's); None when none was, or it still runs. A mark that
    names no pid was cut off too."""
    mark = _read_mark(state_dir)
    return None if mark is None else _cut_off(mark)


def _cut_off(mark: tuple[int, str, int]) -> int | None:
    number, started, _ = mark
    # a zombie too (Linux): killed, not yet reaped by the hook that started it, it read as
    # running, and no session start restarted the embed nor did status say it was cut off
    if not process_alive(number) or process_ended(number):
        return number
    now = process_started(number)
    return number if started and now is not None and now != started else None


def cut_off_runs(state_dir: Path) -> int:
    """How many background embeds in a row were cut off without embedding anything (0 when
    the last one was not cut off)."""
    mark = _read_mark(state_dir)
    return 0 if mark is None or _cut_off(mark) is None else mark[2]


def restart_due(state_dir: Path) -> bool:
    """Whether a session start restarts the background embed: one was cut off, fewer than
    RESTARTS in a row without progress (after that, `memidx embed` by hand says what stops
    it)."""
    mark = _read_mark(state_dir)
    return mark is not None and _cut_off(mark) is not None and mark[2] < RESTARTS


def forget_mark(state_dir: Path, *, mine: bool = False) -> None:
    """Remove the mark: this process's own (`mine`), else only a dead embedder's (a live one
    keeps its own)."""
    path = running_path(state_dir)
    if mine:
        mark = _read_mark(state_dir)
        if mark is None or mark[0] != os.getpid():
            return  # a later embedder's (this one's was replaced), or none: not this one's
    elif cut_off(state_dir) is None:
        return
    with suppress(OSError):
        path.unlink()
