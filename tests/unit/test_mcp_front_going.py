"""A `memidx mcp` front (memidx/mcp/shared.py) that arrives as the memory's shared server exits
(idle, stopped: its listener closed, its socket removed, its lock let go last, 10-30 ms later
on a real one) starts a new server as soon as that lock is let go: it waited START_GRACE (5 s)
for nothing before it looked. In process, on the wall clock: the servers are threads that do
with the lock and the socket what memidx/mcp/daemon.py does; every wait is bounded."""

from __future__ import annotations

import contextlib
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memidx import portable
from memidx.config import Config
from memidx.mcp import shared
from memidx.mcp.daemon import LOCK_WAIT

SOCKET = "mcp-0123456789abcdef.sock"  # as socket_for names it
CLOSE_AT = 0.1  # seconds the going server still has its socket after the front arrives
GOING = 0.2  # seconds more it keeps its lock
# A front reaches the new server in ms past GOING: 2.5 s against START_GRACE's 5 was past it on
# a loaded machine; here the grace is stretched so that a front that waits it shows on any load
GRACE = 30.0  # seconds a front waits before it looks at the lock (START_GRACE, 5)
START_WAIT = 15.0  # seconds a front waits for a server (60): a failure bounded, under GRACE
BOUND = 10.0  # seconds a front may take to reach the new server: one that waits takes 15
LIMIT = 40.0  # seconds any thread of a test lives at most


class Server:
    """A shared server on a thread: it takes the lock as serve_shared does (it leaves when it
    cannot within LOCK_WAIT), loads for `delay` s, listens on a socket that appears only once
    it listens, and greets every connection until `stop`."""

    def __init__(self, path: Path, stop: threading.Event, delay: float = 0.0) -> None:
        self.path, self.stop, self.delay = path, stop, delay
        self.serves = threading.Event()  # it took the lock
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        with portable.file_lock(shared.lock_for(self.path), timeout=LOCK_WAIT) as mine:
            if not mine:
                return
            self.serves.set()
            self.stop.wait(self.delay)
            starting = self.path.with_name(f"{threading.get_ident()}.tmp")
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
                listener.bind(str(starting))
                listener.listen(8)
                starting.replace(self.path)
                self._greet(listener)
            self.path.unlink(missing_ok=True)

    def _greet(self, listener: socket.socket) -> None:
        listener.settimeout(0.02)
        taken: list[socket.socket] = []
        end = time.monotonic() + LIMIT
        while not self.stop.is_set() and time.monotonic() < end:
            with contextlib.suppress(TimeoutError):
                conn, _ = listener.accept()
                taken.append(conn)
                conn.sendall(shared.GREETING)
        for conn in taken:
            conn.close()


def _going(path: Path, how: str, held: threading.Event) -> None:
    """A server exiting, its lock held meanwhile: its socket `removed` already, `refusing` (its
    listener closed, the file not yet removed), or `unanswered` (a connection taken into its
    listener's backlog is let go without a greeting as the listener closes)."""
    with portable.file_lock(shared.lock_for(path)):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as left:
            if how != "removed":
                left.bind(str(path))
            if how == "unanswered":
                left.listen(8)
            held.set()
            time.sleep(CLOSE_AT)
        path.unlink(missing_ok=True)
        time.sleep(GOING)


@pytest.fixture
def folder() -> Iterator[Path]:
    """A folder short enough for a socket's path (pytest's are too deep)."""
    made = Path(tempfile.mkdtemp(prefix="memidx-sock-"))
    yield made
    shutil.rmtree(made)


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Server]]:
    """The servers fronts start (threads), stopped at the test's end."""
    servers: list[Server] = []
    monkeypatch.setattr(shared, "START_WAIT", START_WAIT)
    session = shared._session  # pyright: ignore[reportPrivateUsage]

    def stretched(
        path: Path, wait: float = 0.0, grace: float = GRACE, every: float = 2.0
    ) -> tuple[socket.socket | None, str]:
        return session(path, wait, grace, every)

    monkeypatch.setattr(shared, "_session", stretched)
    stop = threading.Event()

    def start(config: Config, path: Path) -> None:
        servers.append(Server(path, stop))

    monkeypatch.setattr(shared, "_start", start)
    yield servers
    stop.set()
    for server in servers:
        server.thread.join(LIMIT)


def _reached(path: Path) -> float:
    """Seconds a front took to reach a server on `path`."""
    began = time.monotonic()
    config = Config(root=path.parent, index_path=path.parent / ".memidx" / "index.sqlite")
    conn, why = shared._reach(config, path)  # pyright: ignore[reportPrivateUsage]
    took = time.monotonic() - began
    assert conn is not None, why
    conn.close()
    return took


def _old_server(path: Path, how: str) -> threading.Thread:
    held = threading.Event()
    old = threading.Thread(target=_going, args=(path, how, held), daemon=True)
    old.start()
    assert held.wait(LIMIT)
    return old


@pytest.mark.parametrize("how", ["removed", "refusing", "unanswered"])
def test_a_front_that_finds_the_server_going_starts_another_at_once(
    folder: Path, started: list[Server], how: str
) -> None:
    path = folder / SOCKET
    old = _old_server(path, how)
    took = _reached(path)
    old.join(LIMIT)

    assert took < BOUND  # it waited START_GRACE (5 s) before it looked at the lock again
    assert [server.serves.is_set() for server in started] == [True]


def test_fronts_that_find_the_server_going_together_reach_one_new_server(
    folder: Path, started: list[Server]
) -> None:
    """Each front that finds the lock let go starts a server, and their looks at it turn none
    of them away (a starting server waits LOCK_WAIT for it): one serves them all at once."""
    path = folder / SOCKET
    old = _old_server(path, "removed")
    took: list[float] = []
    fronts = [
        threading.Thread(target=lambda: took.append(_reached(path)), daemon=True) for _ in range(3)
    ]
    for front in fronts:
        front.start()
    for front in fronts:
        front.join(LIMIT)
    old.join(LIMIT)

    assert len(took) == 3
    assert max(took) < BOUND
    assert sum(server.serves.is_set() for server in started) == 1


def test_a_front_waits_for_a_starting_server_and_starts_none(
    folder: Path, started: list[Server]
) -> None:
    """A server that holds its lock while it loads is starting, not going: the front's looks
    at its lock find it held, and it is waited for, never started again."""
    path = folder / SOCKET
    stop = threading.Event()
    starting = Server(path, stop, delay=0.3)
    assert starting.serves.wait(LIMIT)
    try:
        took = _reached(path)
    finally:
        stop.set()
        starting.thread.join(LIMIT)

    assert took < BOUND
    assert started == []
