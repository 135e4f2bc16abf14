"""The memidx commands of a clone that move HEAD and then bring the index to it (forget,
remember, a haystack commit, a git hook's sync): each holds a lock file of its own in the
state folder meanwhile, so a search that finds the index behind HEAD in that moment says so,
not that no hook followed (run `memidx sync`), which it said of 4 in 14 forgets."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Generator
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path

from memidx.config import Config
from memidx.portable import file_lock, process_alive

FOLDER = "following"  # in the state folder
HOOK_MARK_AGE = 600.0  # seconds a hook shell's mark is believed: its memidx holds a lock by then


@contextmanager
def following(config: Config, *, at_the_move: bool = False) -> Generator[Callable[[], ExitStack]]:
    """Hold this command's lock file for the block: it moves HEAD and brings the index to it.
    `at_the_move`: taken only once memidx is about to move HEAD (memidx.head_move), not while
    it waits for a person's git before that. A state folder it cannot be made in (read-only,
    no file of memidx's) holds none: a search meanwhile may then say the index is behind, as
    before. Yields `keep`: the lock as held now, kept past the block in the stack it returns
    (the MCP server's follow after its answer: a lock taken anew then is younger than the move,
    which a person's drift check does not wait for, memidx.githooks.drift_wait)."""
    from memidx.head_move import told

    path = config.state_dir / FOLDER / f"{os.getpid()}-{time.monotonic_ns()}.lock"
    with ExitStack() as outer:
        held = outer.enter_context(ExitStack())
        taken: list[bool] = []

        def take() -> None:
            if taken:
                return
            taken.append(True)
            try:  # no state folder: no index, no search to tell (made by the index's sync)
                if config.state_dir.is_dir():
                    held.enter_context(file_lock(path, wait=False))
                    held.callback(path.unlink, missing_ok=True)
            except OSError:
                pass

        def drop() -> None:
            taken.clear()
            held.close()  # an ExitStack closed is empty and usable again

        if not at_the_move:
            take()
        with told(take, drop):
            yield held.pop_all


def followed_now(config: Config, head_moved: float | None = None) -> bool:
    """Whether a command of this clone holds its lock file (`following`) now, or a git hook's
    shell has started memidx (`hook-<pid>.pid`, hooks/memidx-hook: written before Python
    starts, while its pid lives); one a command that ended (killed) left is removed. Given
    when HEAD last moved (`head_moved`, time.time()), a command's counts only when it began
    by then: one begun since has moved nothing yet (a `remember` waiting for the git whose
    check asks held that commit 10 s: each waited for the other)."""
    folder = config.state_dir / FOLDER
    try:
        paths = sorted(folder.glob("*.lock")) if folder.is_dir() else []
        hooks = sorted(folder.glob("hook-*.pid")) if folder.is_dir() else []
    except OSError:
        return False
    for path in paths[:64]:  # bounded: a folder others filled is no reason to read it all
        try:
            with file_lock(path, wait=False) as taken:
                if not taken and (head_moved is None or path.stat().st_mtime <= head_moved):
                    return True
                if not taken:
                    continue
                path.unlink(missing_ok=True)  # its command ended without removing it
        except OSError:
            continue
    return any(_hook_running(path) for path in hooks[:64])


def _hook_running(path: Path) -> bool:
    """Whether the hook shell `path` names (hook-<pid>.pid) still runs: a file younger than
    HOOK_MARK_AGE whose pid lives, started when the mark says (a killed hook's pid given to
    another process, pid_max 32768, said "bringing the index" for 10 min); one whose pid is
    gone or another process's is removed."""
    pid = path.name.removeprefix("hook-").removesuffix(".pid")
    if not pid.isdigit():
        return False
    if not process_alive(int(pid)) or not _started_as_marked(path, pid):
        with suppress(OSError):
            path.unlink()
        return False
    try:
        return time.time() - path.stat().st_mtime < HOOK_MARK_AGE
    except OSError:
        return False  # its hook ended meanwhile


def _started_as_marked(path: Path, pid: str) -> bool:
    """Whether process `pid` started when the mark `path` says its shell did (clock ticks
    since boot, /proc/<pid>/stat's 22nd field); True when either cannot tell (no /proc, a
    mark being written)."""
    from memidx.process_start import process_started

    try:
        said = path.read_text().strip()
    except OSError:
        return True
    started = process_started(pid)
    return not said.isdigit() or started is None or started == said
