"""The detached `memidx sync` a filing starts, with no model for the background embed, to build
an index an agent's hook left unbuilt (memidx.memory.head_sync). Its process is named in
`.memidx/fill-sync` (its pid and, where the system says, when it started): every hook of a
session filed in the log alone and started one more, each waiting up to a minute for the
creation lock and then syncing again; one that runs now is started once. The background embed
a filing starts with a model is named there too: a search waits while either lives
(memidx.mcp.building).

Lean: read by every filing of an agent's hook, so only the standard library and memidx's own."""

from __future__ import annotations

from contextlib import AbstractContextManager, suppress
from pathlib import Path

from memidx.drafts import read_own, replace_durably
from memidx.portable import file_lock, process_alive
from memidx.process_start import process_ended, process_started

MARK = "fill-sync"  # in the state folder
MOST = 64  # bytes: a pid and a start time (a mark past it is none)


def _path(state_dir: Path) -> Path:
    return state_dir / MARK


def fill_lock(state_dir: Path) -> Path:
    return state_dir / f"{MARK}.lock"


def fill_starting(state_dir: Path) -> AbstractContextManager[bool]:
    """Whether this process is the one to look and start it, for the block: two filings at
    once (a Stop hook and a subagent's) each found none running and each started one."""
    return file_lock(fill_lock(state_dir), wait=False)


def fill_running(state_dir: Path) -> bool:
    """Whether the detached sync started last still runs (not ended, not a zombie, its pid not
    given to another process since: its start time, where the system says, is the same)."""
    data = read_own(_path(state_dir), MOST)
    if data is None:
        return False
    pid, _, started = data.decode("ascii", "replace").strip().partition(" ")
    if not (pid.isascii() and pid.isdigit()):
        return False
    number = int(pid)
    if not process_alive(number) or process_ended(number):
        return False
    now = process_started(number)
    return not started or now is None or now == started


def fill_started(state_dir: Path, pid: int) -> None:
    """Name the detached sync just started; a courtesy (a memory that cannot be written keeps
    none: the next filing starts another)."""
    started = process_started(pid)
    text = f"{pid}" if started is None else f"{pid} {started}"
    with suppress(OSError):
        if started is None and not process_alive(pid):  # ended already (reaped: SIGCHLD
            _path(state_dir).unlink(missing_ok=True)  # ignored), its bare pid, once another
            return  # process's, read as running while that one lived: none starts meanwhile
        replace_durably(_path(state_dir), f"{text}\n".encode("ascii"), "tmp", durable=False)
