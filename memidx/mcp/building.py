"""A search that meets an index a filing left to a background build: the MCP server's
`file_turn` into a brand-new memory files in the log alone and starts the build (a hurried
writer never fills an index, see memidx.index.open), and the search that came next answered
"no index ... run `make ingest`", as if nothing had been filed. It now waits a moment for the
build under way, then answers with what was filed; a build that takes longer is said as one."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from memidx.config import Config
from memidx.errors import IndexUnusable

BUILD_WAIT = 5.0  # seconds a search waits for a build under way: a new memory's takes ~1 s
RECENT = 10.0  # seconds since a filing in the log alone: the build it started may be starting
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
    the reader said) when the index is no unbuilt one or no build is under way."""
    from memidx.memory.head_sync import index_left

    if not index_left(config) or not _build_under_way(config):
        raise refused
    deadline = clock() + BUILD_WAIT
    while clock() < deadline:
        sleep(STEP)
        if not index_left(config):
            return
    raise IndexUnusable(
        f"the index at {config.index_path} is being built in the background (every note, "
        "and what was filed in the log meanwhile)",
        "search again in a moment: what was filed is found once it is built",
    ) from refused


def _build_under_way(config: Config) -> bool:
    """Whether a writer holds the index's creation lock (a build fills it under that lock),
    a background embed or the detached sync a filing starts without a model runs, or a
    filing in the log alone, recent enough for the build it started to be on its way, left
    the index to one (with MEMIDX_HOOK_EMBED=0 none is started: the next sync builds it)."""
    from memidx.embed.running import cut_off, running_path
    from memidx.haystack.left_segments import LEFT
    from memidx.memory.fill_sync import fill_running

    state = config.state_dir
    if _locked(Path(f"{config.index_path}.lock")) or fill_running(state):
        return True
    if running_path(state).exists() and cut_off(state) is None:
        return True
    try:
        age = time.time() - (state / LEFT).stat().st_mtime
    except OSError:
        return False
    return config.hook_embed and age < RECENT


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
