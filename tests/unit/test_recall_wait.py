"""A prompt hook waiting for the recall server's acknowledgement and answer
(memidx/agents/recall_client.py) looks whether the server is still answering, and gives up in
time for its own recall when it is not. In-process, on a clock the test moves: the server's
connection and its looks are given."""

from __future__ import annotations

import socket
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from memidx.agents import recall_client
from memidx.agents.recall_server import ACK, ACK_WAIT, HEARD, NO_ACK, NO_ANSWER
from memidx.config import Config
from tests.unit.clocks import Ticks

KEEP = 0.45  # seconds the hook's own recall needs: kept for it


class Silent:
    """A hook's connection to a server that acknowledged it and never answers: each read
    waits its whole timeout on the clock."""

    def __init__(self, clock: Ticks) -> None:
        self.clock, self.timeout = clock, 0.0

    def settimeout(self, timeout: float) -> None:
        self.timeout = timeout

    def recv(self, size: int) -> bytes:
        self.clock.now += self.timeout
        raise TimeoutError

    def connect(self, path: str) -> None:
        pass  # taken into the backlog of a server that accepts nothing more (SIGSTOP)

    def __enter__(self) -> Silent:
        return self

    def __exit__(self, *_: object) -> None:
        pass


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Ticks:
    given = Ticks()
    monkeypatch.setattr(recall_client, "time", given)
    return given


def waited(clock: Ticks, end: float) -> bytes:
    """What the hook's wait for its answer, until `end`, gives."""
    conn = cast(socket.socket, Silent(clock))
    return recall_client._answer(conn, Path("recall.sock"), end, keep=KEEP)  # pyright: ignore[reportPrivateUsage]


def test_a_waiting_hook_looks_at_the_server_before_its_own_recall_last_fits(
    clock: Ticks, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hook waiting for its answer looked whether the server had stalled every 0.2 s from
    its start: with 0.45 s its own recall needs, it looked with 0.6 s left and next with 0.4 s,
    and a stall found then left it too little. It looks ACK_WAIT before 0.45 s are left, with
    0.75 s, so that the look, however long it waits, ends in time."""
    end = clock.now + 1.0
    looked: list[float] = []

    def answering(path: Path, left: float) -> bool:
        looked.append(round(end - clock.now, 6))
        return True  # busy with other hooks' prompts: the hook goes on waiting

    monkeypatch.setattr(recall_client, "_answering", answering)

    assert waited(clock, end) == b""
    assert round(KEEP + ACK_WAIT, 6) in looked, looked
    assert looked[:2] == [0.8, 0.75], looked  # and every PROBE_EVERY s before it


@pytest.mark.parametrize("stopped", [0.9, 0.7, 0.6])
def test_a_look_at_a_server_that_stopped_leaves_the_hook_the_time_kept(
    clock: Ticks, monkeypatch: pytest.MonkeyPatch, stopped: float
) -> None:
    """The server stops (SIGSTOP) with `stopped` s left: each look after waits as long as it
    is let (up to ACK_WAIT, as _answering does) for an acknowledgement that never comes. A
    look with 0.6 s left waited its whole 0.3 s, into the 0.45 s kept, and the hook's own
    recall began with 0.3 s left, or not at all."""
    end = clock.now + 1.0

    def answering(path: Path, left: float) -> bool:
        if end - clock.now > stopped:
            return True
        clock.now += max(0.01, min(ACK_WAIT, left))
        return False

    monkeypatch.setattr(recall_client, "_answering", answering)

    assert waited(clock, end) == b""
    assert round(end - clock.now, 6) >= KEEP, end - clock.now


class Unread(Silent):
    """A connection whose server acknowledges it and reads nothing of the request: a long
    one fills the socket's buffer, and each write waits its whole timeout on the clock."""

    def __init__(self, clock: Ticks) -> None:
        super().__init__(clock)
        self.acknowledged = False

    def recv(self, size: int) -> bytes:
        if not self.acknowledged:
            self.acknowledged = True
            return ACK
        return super().recv(size)

    def send(self, data: memoryview) -> int:
        self.clock.now += self.timeout
        raise TimeoutError


def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, conn: Silent) -> Config:
    """A memory whose server's socket takes the hook's connection as `conn`."""
    (path := tmp_path / "recall.sock").touch()

    def socket_path(config: Config) -> Path:
        return path

    def connection(*_: int) -> Silent:
        return conn

    def peer_pid(conn: object) -> int:
        return 4242

    monkeypatch.setattr(recall_client, "socket_path", socket_path)
    monkeypatch.setattr(
        recall_client,
        "socket",
        SimpleNamespace(AF_UNIX=0, SOCK_STREAM=0, SHUT_WR=1, socket=connection),
    )
    monkeypatch.setattr("memidx.sockets.peer_pid", peer_pid)
    return Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")


@pytest.mark.parametrize(
    ("timeout", "heard"),
    [(1.0, {"error": NO_ACK, "pid": 4242}), (KEEP + 0.15, None)],  # the whole ACK_WAIT, or less
)
def test_a_wedged_servers_acknowledgement_is_not_waited_for_into_the_time_kept(
    clock: Ticks,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    timeout: float,
    heard: dict[str, object] | None,
) -> None:
    """A server that takes the connection and never acknowledges it (stopped): a hook with
    less than ACK_WAIT before the time kept for its own recall waited the whole ACK_WAIT, and
    its own recall began with 0.3 s of the 0.45 s it needs, or not at all. It waits what is
    left before it, and marks nothing: a hook with the whole ACK_WAIT to wait does that."""
    config = served(tmp_path, monkeypatch, Silent(clock))
    end = clock.now + timeout

    assert recall_client.ask(config, {"prompt": "a prompt"}, timeout, keep=KEEP) == heard
    assert round(end - clock.now, 6) >= KEEP, end - clock.now


@pytest.mark.parametrize("stopped", [1.0, 0.7])
def test_a_request_the_server_does_not_read_is_written_while_it_answers_and_no_longer(
    clock: Ticks, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, stopped: float
) -> None:
    """A server busy with other prompts (its workers read a request only as one is free)
    that stalls, or stops, with `stopped` s left: a request longer than the socket's buffer
    was written at once, and waited on to the deadline, past the time kept for the hook's own
    recall. It is written while the server is answering, looked at as an answer is waited
    for; the server stalled, the hook is let go in time, the server heard from."""
    config = served(tmp_path, monkeypatch, Unread(clock))
    end = clock.now + 1.0
    looked: list[float] = []

    def answering(path: Path, left: float) -> bool:
        looked.append(round(end - clock.now, 6))
        if end - clock.now > stopped:
            return True
        clock.now += max(0.01, min(ACK_WAIT, left))
        return False

    monkeypatch.setattr(recall_client, "_answering", answering)

    answer = recall_client.ask(config, {"prompt": "一" * 32_000}, 1.0, keep=KEEP)

    assert answer == {"error": NO_ANSWER, HEARD: end - 1.0}
    assert round(end - clock.now, 6) >= KEEP, end - clock.now
    assert looked, looked


class Trickle(Silent):
    """A connection whose server sends its answer a little at a time and never ends its line
    (killed or stopped between writes of a long one, or not memidx's): each read gets some."""

    def recv(self, size: int) -> bytes:
        self.clock.now += min(self.timeout, 0.05)
        return b"x" * size


def test_an_answer_that_keeps_coming_is_waited_for_until_the_end_and_no_longer(
    clock: Ticks, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each read of the answer waited up to its timeout, but the answer's line was read to its
    end or to MAX_REQUEST first: a server that kept sending a little held the hook 2 s past
    the end it was given (10 s in a real run: ask(timeout=1.0))."""

    def answering(path: Path, left: float) -> bool:
        return True  # never asked: the server is heard from at every read

    monkeypatch.setattr(recall_client, "_answering", answering)
    end = clock.now + 1.0
    conn = cast(socket.socket, Trickle(clock))

    answer = recall_client._answer(conn, Path("recall.sock"), end, keep=KEEP)  # pyright: ignore[reportPrivateUsage]

    assert clock.now <= end + 0.05, clock.now - end
    assert not answer.endswith(b"\n")


class LetGo(Unread):
    """A connection the server acknowledged and then closed unread (it gave up on a stuck
    answer and let its waiting hooks go: recall_workers.Workers.close): the system says so to a
    write (EPIPE), or to the read of the answer (ECONNRESET: the request was left unread)."""

    def __init__(self, clock: Ticks, error: OSError) -> None:
        super().__init__(clock)
        self.error = error

    def send(self, data: memoryview) -> int:
        if isinstance(self.error, BrokenPipeError):
            raise self.error
        return len(data)

    def shutdown(self, how: int) -> None:
        pass

    def recv(self, size: int) -> bytes:
        if not self.acknowledged:
            return super().recv(size)
        raise self.error


@pytest.mark.parametrize(
    "error", [BrokenPipeError(32, "Broken pipe"), ConnectionResetError(104, "reset")], ids=str
)
def test_a_hook_let_go_by_the_server_that_acknowledged_it_heard_from_it(
    clock: Ticks, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, error: OSError
) -> None:
    """The hook read the system's word for "closed" as no server at all (None): it went on
    asking while the closing server held its lock, and never said it had heard from the
    server, which clears a mark that found it wedged (recall_wedge.acknowledged). It is
    NO_ANSWER, as a close without that word is."""
    config = served(tmp_path, monkeypatch, LetGo(clock, error))

    answer = recall_client.ask(config, {"prompt": "a prompt"}, 1.0, keep=KEEP)

    assert answer == {"error": NO_ANSWER, HEARD: clock.now}
