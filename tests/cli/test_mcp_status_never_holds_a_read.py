"""The MCP server's status tool put right what `memidx status` puts right first (a killed
memidx's lock, a pending note HEAD holds: memidx.memory.pending_landed) on the server's one
reading thread, where it may wait for git (2 s for a git holding the clone, longer behind a
commit lock): every search, get and recent of every session waited behind it. Now that runs
on the writing thread; the look alone on the reading one, and the answer does not wait for
the putting right past SETTLE_WITHIN."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memidx.config import load_config
from memidx.mcp.serve import Workers
from memidx.mcp.server import SETTLE_WITHIN, build_server
from memidx.memory import pending_landed
from tests.helpers import started_memory


def _stalled(release: threading.Event) -> Callable[..., None]:
    def settle_landed(*_: Any) -> None:  # as one waiting for a git that holds the clone
        release.wait(30)

    return settle_landed


def test_a_read_is_answered_while_the_status_tool_waits_to_put_right(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = started_memory(tmp_path)
    release = threading.Event()
    monkeypatch.setattr(pending_landed, "settle_landed", _stalled(release))
    workers = Workers(load_config(repo.root, env={}))
    workers.hand_over.delay = 3600.0
    workers.warming.result()

    async def calls() -> tuple[float, float, Any]:
        started = time.monotonic()
        status = asyncio.ensure_future(build_server(workers).call_tool("status", {}))
        await asyncio.sleep(0.2)  # the status call has begun
        await asyncio.wait_for(workers.read("a search", lambda: None), 5.0)
        read = time.monotonic() - started
        answered: Any = await asyncio.wait_for(status, 10.0)
        return read, time.monotonic() - started, answered

    try:
        read, answer, result = asyncio.run(calls())
        assert not release.is_set()  # both answered while the putting right still waited
    finally:
        release.set()
        workers.hand_over.cancel()
        workers.close()
    assert read < 5.0 and answer < SETTLE_WITHIN + 5.0, (read, answer)
    assert result.structured_content["schema"] == "memidx.status/1"
