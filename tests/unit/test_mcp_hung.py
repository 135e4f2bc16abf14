"""A stopped (SIGSTOP) or hung shared MCP server and the `memidx mcp` fronts that meet it
(memidx/mcp/shared.py, relay.py, hung.py): a session's start is served in bounded time and the
server is replaced, once provably this socket's server; a session whose call it holds gets an
error in bounded time; a server that greets but is busy with a long call is never ended. The
server is a small Python process that holds the lock, names itself in mcp-server.json, listens
and greets as memidx/mcp/daemon.py does, and never answers a request; every wait is bounded,
and it is continued and killed at the end of each test."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from memidx.config import Config
from memidx.mcp import hung, relay, shared
from tests.helpers import dead_pid
from tests.unit.test_mcp_front_going import SOCKET, Server

GREET_WAIT = 0.3  # seconds (2): the waits of the tests, short
QUIET = 0.2  # seconds (5)
BOUND = 6.0  # seconds a front may take: 60 before (three tries of two 10 s waits)
LIMIT = 20.0  # seconds any wait of a test lasts at most
HOLDING = """\
import fcntl, json, os, socket, sys, threading, time
def hold(conn):  # read, never answered (a long call); closed at the session's end, as daemon.py
    while conn.recv(65536):
        pass
    conn.close()
path, lock, record, named = sys.argv[1:5]
held = open(lock, "a")
fcntl.flock(held, fcntl.LOCK_EX)
with open(record, "w") as out:
    json.dump({"pid": int(named) or os.getpid(), "socket": path, "sessions": 0}, out)
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
server.listen(64)
server.settimeout(0.02)
print("listening", flush=True)
end = time.monotonic() + 60
while time.monotonic() < end:
    try:
        conn, _ = server.accept()
    except TimeoutError:
        continue
    conn.sendall(b"memidx-mcp 1\\n")
    threading.Thread(target=hold, args=(conn,), daemon=True).start()
"""


@pytest.fixture
def config(monkeypatch: pytest.MonkeyPatch) -> Iterator[Config]:
    """A memory's folder short enough for a socket's path, the front's waits short."""
    monkeypatch.setattr(shared, "GREET_WAIT", GREET_WAIT)
    monkeypatch.setattr(relay, "QUIET", QUIET)
    monkeypatch.setattr(shared, "START_WAIT", 8.0)
    folder = Path(tempfile.mkdtemp(prefix="mx-"))
    (folder / ".memidx").mkdir()
    yield Config(root=folder, index_path=folder / ".memidx" / "index.sqlite")
    shutil.rmtree(folder)


@contextmanager
def server(
    config: Config, *, named: int = 0, lock: Path | None = None
) -> Generator[subprocess.Popen[bytes]]:
    """A server's process listening on the socket, holding its lock (or the file `lock`); the
    record names it (or the pid `named`). Continued and killed at the end."""
    path = config.state_dir / SOCKET
    record = config.state_dir / "mcp-server.json"
    held = lock or shared.lock_for(path)
    argv = [sys.executable, "-c", HOLDING, str(path), str(held), str(record)]
    process = subprocess.Popen([*argv, str(named)], stdout=subprocess.PIPE)
    try:
        assert process.stdout is not None and process.stdout.readline() == b"listening\n"
        yield process
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGCONT)
            process.kill()
        process.wait(LIMIT)


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Server]]:
    """The servers fronts start (threads that greet), stopped at the test's end."""
    servers: list[Server] = []
    stop = threading.Event()

    def start(_: Config, path: Path) -> None:
        servers.append(Server(path, stop))

    monkeypatch.setattr(shared, "_start", start)
    yield servers
    stop.set()
    for one in servers:
        one.thread.join(LIMIT)


def _reach(config: Config) -> tuple[socket.socket | None, str, float]:
    """What a front reaches (bounded: a thread), and how long it took."""
    done: list[tuple[socket.socket | None, str]] = []
    began = time.monotonic()
    front = threading.Thread(
        target=lambda: done.append(shared._reach(config, config.state_dir / SOCKET)),  # pyright: ignore[reportPrivateUsage]
        daemon=True,
    )
    front.start()
    front.join(LIMIT)
    assert done, "the front is still waiting"
    return *done[0], time.monotonic() - began


def test_a_stopped_server_is_replaced_by_the_front_that_finds_it(
    config: Config, started: list[Server]
) -> None:
    """A server that took each connection and never greeted kept its lock: each session
    waited 60 s for it, then served itself, and no other server could start."""
    with server(config) as stopped:
        os.kill(stopped.pid, signal.SIGSTOP)
        conn, why, took = _reach(config)
        code = stopped.wait(LIMIT)

    assert conn is not None, why
    conn.close()
    assert code == -signal.SIGKILL
    assert took < BOUND
    assert [one.serves.is_set() for one in started] == [True]


def test_a_stopped_listener_not_provably_the_server_is_never_ended(
    config: Config, started: list[Server]
) -> None:
    """One the record does not name: the session is served in the front's process, at once."""
    with server(config, named=dead_pid()) as stopped:
        os.kill(stopped.pid, signal.SIGSTOP)
        conn, why, took = _reach(config)
        alive = stopped.poll() is None

    assert (conn, why) == (None, shared.UNGREETED)
    assert alive
    assert took < BOUND
    assert started == []


def _relayed(config: Config, request: bytes, stop: bool) -> tuple[bool | None, bytes]:
    """A session relayed to the server, which greets it, gets `request`, is stopped or not,
    and never answers: what relay() returned, and what the client read, once stdin ends
    (LIMIT s on) or the session does."""
    path = config.state_dir / SOCKET
    conn, why, _ = _reach(config)
    assert conn is not None, why
    client_in, stdin = os.pipe()
    stdout, client_out = os.pipe()
    os.write(stdin, request)
    ended: list[bool | None] = []
    began = time.monotonic()
    if stop:
        os.kill(_pid(config), signal.SIGSTOP)
    front = threading.Thread(
        target=lambda: ended.append(relay.relay(config, path, conn, client_in, client_out)),
        daemon=True,
    )
    front.start()
    front.join(BOUND if stop else 1.5)
    os.close(stdin)  # the client goes: a session that still runs ends
    front.join(LIMIT)
    os.close(client_out)
    with os.fdopen(stdout, "rb") as read:
        out = read.read()
    conn.close()
    os.close(client_in)
    assert ended, "the front is still waiting"
    assert time.monotonic() - began < LIMIT
    return ended[0], out


def _pid(config: Config) -> int:
    return int(json.loads((config.state_dir / "mcp-server.json").read_text())["pid"])


REQUEST = b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {}}\n'


def test_a_call_the_stopped_server_holds_gets_an_error_in_bounded_time(config: Config) -> None:
    """The session waited for ever (the client's own timeout, if it has one)."""
    with server(config) as stopped:
        ended, out = _relayed(config, REQUEST, stop=True)
        code = stopped.wait(LIMIT)

    assert ended is None
    assert code == -signal.SIGKILL
    (answer,) = [json.loads(line) for line in out.splitlines()]
    assert answer["id"] == 7
    assert answer["error"]["code"] == relay.ENDED


def test_a_server_busy_with_a_long_call_is_waited_for(config: Config) -> None:
    """It greets a look at it at once: never ended, the session goes on until the client goes
    (and the call this server drops at the session's end, unlike daemon.py, gets the error)."""
    with server(config) as busy:
        ended, out = _relayed(config, REQUEST, stop=False)
        alive = busy.poll() is None

    assert ended is False
    assert [json.loads(line)["id"] for line in out.splitlines()] == [7]
    assert alive
    assert not hung.suspect_mark(config.state_dir / SOCKET).exists()


def test_a_long_request_the_server_reads_late_reaches_it_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The front's looks at a silent server must not time out its sends: a request larger
    than the socket's buffers, which a busy server reads only later, arrives whole."""
    monkeypatch.setattr(relay, "QUIET", QUIET)
    request = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"' + b"x" * (2 << 20)
    request += b'"}\n'
    front, server_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    client_in, stdin = os.pipe()
    stdout, client_out = os.pipe()
    got: list[int] = []

    def late_reader() -> None:
        time.sleep(3 * QUIET)
        got.append(sum(len(chunk) for chunk in iter(lambda: server_end.recv(1 << 16), b"")))
        server_end.sendall(b'{"jsonrpc":"2.0","id":1,"result":{}}\n')  # answered, then ended
        server_end.close()

    def client() -> None:
        os.write(stdin, request)
        os.close(stdin)

    threads = [threading.Thread(target=work, daemon=True) for work in (late_reader, client)]
    for thread in threads:
        thread.start()
    ended = relay.pump(front, client_in, client_out, lambda: True)
    for thread in threads:
        thread.join(LIMIT)
    for fd in (client_in, client_out, stdout):
        os.close(fd)
    front.close()

    assert ended is True
    assert got == [len(request)]


def test_a_call_of_a_client_done_writing_gets_an_error_when_the_server_is_ended(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A client that writes its request and closes stdin (`printf ... | memidx mcp`) still
    reads stdout: a server found hung and ended under it left it no answer, and the front
    exited 0 with nothing said."""
    monkeypatch.setattr(relay, "QUIET", QUIET)
    front, server_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    client_in, stdin = os.pipe()
    stdout, client_out = os.pipe()
    os.write(stdin, REQUEST)
    os.close(stdin)
    looks: list[float] = []

    def hung_server() -> bool:  # found hung on the look; ended (its connection goes with it)
        looks.append(time.monotonic())
        server_end.close()
        return False

    ended = relay.pump(front, client_in, client_out, hung_server)
    os.close(client_out)
    with os.fdopen(stdout, "rb") as read:
        out = read.read()
    os.close(client_in)
    front.close()

    assert ended is False
    assert len(looks) == 1
    (answer,) = [json.loads(line) for line in out.splitlines()]
    assert answer["id"] == 7
    assert answer["error"]["code"] == relay.ENDED


def test_a_front_that_finds_the_hung_server_ended_by_another_joins_the_next(
    config: Config,
) -> None:
    """Fronts that met one stopped server at once: the one that ended it started the next,
    and each of the others, finding it gone (its lock let go), served its session itself."""
    path = config.state_dir / SOCKET
    with server(config) as stopped:
        os.kill(stopped.pid, signal.SIGSTOP)
        conn, why = shared._session(path)  # pyright: ignore[reportPrivateUsage]
        assert conn is not None and why == shared.UNGREETED
        stopped.kill()  # by the other front
        stopped.wait(LIMIT)
        assert hung.look_again(config, path, conn) == "none"


def test_one_finding_never_ends_a_server(config: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server is ended on a second finding SUSPECT_AFTER s after the first, never on one: a
    stall of the machine missed one greeting; and a greeting since the mark forgets it."""
    monkeypatch.setattr(hung, "SUSPECT_AFTER", 0.1)
    path = config.state_dir / SOCKET
    with server(config) as stopped:
        os.kill(stopped.pid, signal.SIGSTOP)
        first = hung.found_hung(config, path, stopped.pid)
        at_once = hung.found_hung(config, path, stopped.pid)  # not SUSPECT_AFTER s later
        time.sleep(0.01)
        hung.greeted(path, time.monotonic())  # a connection begun after the mark was greeted
        time.sleep(0.2)
        after_greeting = hung.found_hung(config, path, stopped.pid)  # a first finding again
        alive = stopped.poll() is None

    assert (first, at_once, after_greeting) == (False, False, False)
    assert alive


def test_a_server_not_holding_the_lock_is_never_ended(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record names it and it listens on the socket, but the socket's lock is free: not
    provably the server that serves it (one killed left its record; a process of another).
    The session starts the next server, which takes the socket's name (as the README says)."""
    monkeypatch.setattr(hung, "SUSPECT_AFTER", 0.0)
    path = config.state_dir / SOCKET
    with server(config, lock=config.state_dir / "other.lock") as stopped:
        os.kill(stopped.pid, signal.SIGSTOP)
        found = [hung.found_hung(config, path, stopped.pid) for _ in range(2)]
        conn, why = shared._session(path)  # pyright: ignore[reportPrivateUsage]
        assert conn is not None and why == shared.UNGREETED
        then = hung.look_again(config, path, conn)
        alive = stopped.poll() is None

    assert found == [False, False]
    assert then == "none"
    assert alive


def test_a_front_that_cannot_look_at_the_lock_serves_its_session_itself(config: Config) -> None:
    """A server took the connection and did not greet it, and the socket's lock cannot be
    looked at (a folder there: its holder cannot be asked). It may still hold the socket, so
    the front starts no other server beside it ("none"): it serves the session itself."""
    path = config.state_dir / SOCKET
    shared.lock_for(path).mkdir(parents=True)
    front, server_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with server_end:
        assert hung.look_again(config, path, front) == shared.UNGREETED
    assert not hung.suspect_mark(path).exists()


def test_a_call_of_a_client_done_writing_gets_an_error_when_the_server_dies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server that dies (killed, out of memory) under a client that wrote its request and
    closed stdin ends the session with the request unanswered: the client got no answer and
    the front exited 0, though a server that ends a session answers every request first."""
    monkeypatch.setattr(relay, "QUIET", QUIET)
    front, server_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    client_in, stdin = os.pipe()
    stdout, client_out = os.pipe()
    os.write(stdin, REQUEST)
    os.close(stdin)

    def dying_server() -> None:  # reads the request and the end of the client's input, dies
        while server_end.recv(65536):
            pass
        server_end.close()

    threading.Thread(target=dying_server, daemon=True).start()
    ended = relay.pump(front, client_in, client_out, lambda: True)
    os.close(client_out)
    with os.fdopen(stdout, "rb") as read:
        out = read.read()
    os.close(client_in)
    front.close()

    assert ended is False
    (answer,) = [json.loads(line) for line in out.splitlines()]
    assert answer["id"] == 7
    assert answer["error"]["code"] == relay.ENDED


def test_a_last_call_without_a_newline_gets_an_error_when_the_server_dies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server serves the last line of a client's input though no newline ends it: the
    front took it for no request, so a server dying under it left it unanswered, exit 0."""
    monkeypatch.setattr(relay, "QUIET", QUIET)
    front, server_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    client_in, stdin = os.pipe()
    stdout, client_out = os.pipe()
    os.write(stdin, REQUEST.rstrip(b"\n"))
    os.close(stdin)

    def dying_server() -> None:  # reads the request and the end of the client's input, dies
        while server_end.recv(65536):
            pass
        server_end.close()

    threading.Thread(target=dying_server, daemon=True).start()
    ended = relay.pump(front, client_in, client_out, lambda: True)
    os.close(client_out)
    with os.fdopen(stdout, "rb") as read:
        out = read.read()
    os.close(client_in)
    front.close()

    assert ended is False
    assert [json.loads(line)["id"] for line in out.splitlines()] == [7]


def test_an_answer_too_long_to_read_its_id_is_no_request_left(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The front reads no id of an answer line past pending.MAX_LINE (a batch of large `get`
    answers): a client done writing whose server answered so and ended the session got an
    error for that answered request, and the front exited 1."""
    from memidx.mcp import pending

    monkeypatch.setattr(relay, "QUIET", QUIET)
    monkeypatch.setattr(pending, "MAX_LINE", 100)  # the request fits, its answer not
    front, server_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    client_in, stdin = os.pipe()
    stdout, client_out = os.pipe()
    os.write(stdin, REQUEST)
    os.close(stdin)
    answer = b'{"jsonrpc": "2.0", "id": 7, "result": {"text": "' + b"x" * 200 + b'"}}\n'

    def answering_server() -> None:  # answers once the client's input ends, then ends
        while server_end.recv(65536):
            pass
        server_end.sendall(answer[:150])  # in two reads: more than MAX_LINE before its end
        time.sleep(0.1)
        server_end.sendall(answer[150:])
        server_end.close()

    threading.Thread(target=answering_server, daemon=True).start()
    ended = relay.pump(front, client_in, client_out, lambda: True)
    os.close(client_out)
    with os.fdopen(stdout, "rb") as read:
        out = read.read()
    os.close(client_in)
    front.close()

    assert (ended, out) == (True, answer)


def test_a_call_sent_after_an_answer_too_long_to_read_gets_an_error_when_the_server_dies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An answer line too long to read may answer any request waiting when it came, never one
    sent after it: once such a line was skipped, a server dying under a client done writing
    left every later call without an answer, and the front exited 0."""
    from memidx.mcp import pending

    monkeypatch.setattr(relay, "QUIET", QUIET)
    monkeypatch.setattr(pending, "MAX_LINE", 100)  # the request fits, its answer not
    front, server_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    client_in, stdin = os.pipe()
    stdout, client_out = os.pipe()
    os.write(stdin, REQUEST)
    answer = b'{"jsonrpc": "2.0", "id": 7, "result": {"text": "' + b"x" * 200 + b'"}}\n'
    later = REQUEST.replace(b'"id": 7', b'"id": 8')
    relayed = bytearray()

    def server_dying_after_a_long_answer() -> None:
        server_end.recv(65536)  # request 7
        server_end.sendall(answer[:150])  # in two reads: more than MAX_LINE before its end
        time.sleep(0.1)
        server_end.sendall(answer[150:])
        while len(relayed) < len(answer):  # the client has read it: the front did
            relayed.extend(os.read(stdout, len(answer) - len(relayed)))
        os.write(stdin, later)  # the client's next call, then the end of its input
        os.close(stdin)
        while server_end.recv(65536):
            pass
        server_end.close()  # dies: request 8 unanswered

    server = threading.Thread(target=server_dying_after_a_long_answer, daemon=True)
    server.start()
    ended = relay.pump(front, client_in, client_out, lambda: True)
    server.join(LIMIT)
    os.close(client_out)
    with os.fdopen(stdout, "rb") as read:
        out = read.read()
    os.close(client_in)
    front.close()

    assert ended is False
    assert relayed == answer
    errors = [json.loads(line) for line in out.splitlines()]
    assert [error["id"] for error in errors] == [8]  # 7 was answered, by that long line
    assert {error["error"]["code"] for error in errors} == {relay.ENDED}
