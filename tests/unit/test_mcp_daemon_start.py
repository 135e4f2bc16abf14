"""A starting shared MCP server and the looks at its lock: a front that finds no server
(memidx/mcp/shared.py, _nobody_serves) and a server clearing another stamp's leftovers
(memidx/mcp/leftovers.py) each take that lock for a moment to see whether it is held. In
process: the serving is recorded, not made."""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path

import pytest

import memidx.children
from memidx import portable
from memidx.config import Config
from memidx.mcp import daemon
from memidx.mcp.shared import lock_for
from tests.unit.clocks import Clock, LookEnds

SOCKET = "mcp-0123456789abcdef.sock"  # as socket_for names it
LIMIT = 30.0  # seconds a new server is given to leave (it leaves in ms)


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The sockets a server went on to serve (recorded, none is made)."""
    sockets: list[Path] = []

    def serve(config: Config, path: Path) -> int:
        sockets.append(path)
        return 0

    def start_logging(config: Config, *, stderr: bool = True) -> None:
        pass

    monkeypatch.setattr(daemon, "_serve", serve)
    monkeypatch.setattr(memidx.children, "leave_parent", lambda: None)  # stays this process
    monkeypatch.setattr(daemon, "start_logging", start_logging)
    return sockets


def test_a_look_at_the_lock_does_not_turn_a_starting_server_away(
    config: Config, served: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that met a look went at once, as if another one served (3 of 300 starts with
    20 fronts looking every 50 ms), and the front that started it waited START_GRACE seconds
    before it looked again and started another, unless that look was a front's that started
    one itself. It waits a moment for its lock: here the look ends at its first wait."""
    path = config.root / SOCKET
    look = contextlib.ExitStack()
    look.enter_context(portable.file_lock(lock_for(path)))

    monkeypatch.setattr(portable, "time", LookEnds(look))
    try:
        assert daemon.serve_shared(config, path) == 0
    finally:
        look.close()

    assert served == [path]


def test_a_server_that_holds_the_lock_keeps_it(
    config: Config, served: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wait is short: a new server leaves within it while another one serves, its record
    and socket untouched (it reaches none of them). Its wait is counted on a clock that only
    its sleeps move: 1 s of the wall clock was past a loaded machine's 0.1 s wait."""
    path = config.root / SOCKET
    clock = Clock()
    monkeypatch.setattr(portable, "time", clock)
    left: list[int] = []
    with portable.file_lock(lock_for(path)):  # the server that serves
        began = clock.monotonic()
        new = threading.Thread(target=lambda: left.append(daemon.serve_shared(config, path)))
        new.start()
        new.join(LIMIT)  # one that waits for the lock for ever never leaves
        waited = clock.monotonic() - began

    assert left == [0]
    assert served == []
    assert waited < 1.0, waited  # seconds of its own waiting (LOCK_WAIT, 0.1)
