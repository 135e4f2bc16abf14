"""A search that meets an index a filing left to a background build: the MCP server's
`file_turn` into a brand-new memory files in the log alone and starts the build (a hurried
writer never fills an index, see memidx.index.open), and the search that came next answered
"no index ... run `make ingest`", as if nothing had been filed. It now waits a moment for the
build under way, then answers with what was filed; a build that takes longer is said as one.
A build is under way only while a process doing it lives: one that died is not waited for
(the whole BUILD_WAIT was), nor is one a filing only may have started (a filing seen in the
last 10 s read as a build for all that time, when none ran)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from memidx.config import Config
from memidx.errors import IndexUnusable

BUILD_WAIT = 5.0  # seconds a search waits for a build under way: a new memory's takes ~1 s
STEP = 0.1


def wait_for_build(
    config: Config,
    refused: IndexUnusable,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Return once the index a build under way was filling is built (BUILD_WAIT seconds at
    most); IndexUnusable saying it is being built when it is not by then; `refused` (what
    the reader said) when the index is no unbuilt one, or no build is under way (from the
    start, or once the process doing it ended without building it)."""
    from memidx.memory.head_sync import index_left

    if not index_left(config) or not _build_under_way(config):
        raise refused
    deadline = clock() + BUILD_WAIT
    while clock() < deadline:
        sleep(STEP)
        if not index_left(config):
            return
        if not _build_under_way(config):  # it died: waiting on would find nothing
            if not index_left(config):  # it ended as it finished
                return
            raise refused
    raise IndexUnusable(
        f"the index at {config.index_path} is being built in the background (every note, "
        "and what was filed in the log meanwhile)",
        "search again in a moment: what was filed is found once it is built",
    ) from refused


def _build_under_way(config: Config) -> bool:
    """Whether a process builds the index: a writer holds its creation lock (a build fills
    it under that lock), a background embed runs, or the process a filing started to build
    it (the detached sync, or the background embed before it marks itself) lives. A filing
    that started none (MEMIDX_HOOK_EMBED=0, or its start failed) leaves the next sync to."""
    from memidx.embed.running import cut_off, running_path
    from memidx.memory.fill_sync import fill_running

    state = config.state_dir
    if _locked(Path(f"{config.index_path}.lock")) or fill_running(state):
        return True
    return running_path(state).exists() and cut_off(state) is None


def _locked(lock: Path) -> bool:
    """Whether another process holds `lock`; a missing lock file is not made (a reader)."""
    from memidx.portable import file_lock

    if not lock.is_file():
        return False
    try:
        with file_lock(lock, wait=False) as taken:
            return not taken
    except OSError:
        return False
