"""What a client or the system may throw at memidx's servers, with real processes: lines that
are not JSON-RPC messages and a message over 16 MiB (raw bytes on `memidx mcp`'s stdin, in its
own process and through the shared server), and SIGTERM or SIGHUP, which end the shared MCP
server, `memidx mcp --own` and the agents' recall server as a normal stop does: no socket, pid
file or record left behind, exit status 128 + the signal; and what `since`/`until` say of time
zones, which is what they do."""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from tests.cli import mcp_client as mc
from tests.helpers import MEMIDX_BIN, NotesRepo

STOPS = [("SIGTERM", 143), ("SIGHUP", 129)]
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}
}}  # fmt: skip
# The shared server without its last fork (leave_parent), so its exit status is this test's.
DAEMON = (
    "import faulthandler, signal, sys; faulthandler.register(signal.SIGUSR1, all_threads=True); "
    "import memidx.children as p; p.leave_parent = lambda: None; "
    "from memidx.cli.main import main; raise SystemExit(main(sys.argv[1:]))"
)


@pytest.fixture
def memory() -> Iterator[NotesRepo]:
    with mc.short_memory() as repo:
        yield repo


class Raw:
    """`memidx mcp` fed raw bytes; its answers read line by line, each within a deadline."""

    def __init__(self, root: Path, *args: str, **env: str) -> None:
        argv = [str(MEMIDX_BIN), "-C", str(root), "mcp", *args]
        self.err = (root.parent / "raw.err").open("ab")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.err, env=mc.isolated_env(root, **env))  # fmt: skip
        self.lines: queue.Queue[bytes] = queue.Queue()
        out: IO[bytes] | None = self.proc.stdout
        assert out is not None
        threading.Thread(target=lambda: [self.lines.put(ln) for ln in out], daemon=True).start()

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def answer(self, timeout: float = 60.0) -> dict[str, Any]:
        return json.loads(self.lines.get(timeout=timeout))

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def close(self) -> int:
        self.close_stdin()
        code = self.proc.wait(60)
        self.err.close()
        return code


@pytest.mark.parametrize("how", [(), ("--own",)], ids=["shared", "own"])
def test_a_bad_line_gets_a_json_rpc_error_and_the_session_goes_on(
    memory: NotesRepo, how: tuple[str, ...]
) -> None:
    """The SDK dropped such lines without a word: a request that is not quite one (params not
    an object) never got its answer, and its client waited for ever."""
    raw = Raw(memory.root, *how)
    try:
        raw.send(json.dumps(INIT).encode() + b"\n")
        assert raw.answer()["id"] == 1
        raw.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        raw.send(b"this is not json\n\n[1, 2]\n")
        raw.send(b'{"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": 5}\n')
        raw.send(b'{"jsonrpc": "2.0", "id": 8, "method": "ping"}\n')
        answers = [raw.answer() for _ in range(4)]
    finally:
        assert raw.close() == 0
    assert [(a.get("id"), a.get("error", {}).get("code")) for a in answers] == [
        (None, -32700), (None, -32600), (7, -32600), (8, None)
    ]  # fmt: skip
    assert answers[3]["result"] == {}


@pytest.mark.parametrize("how", [(), ("--own",)], ids=["shared", "own"])
def test_a_message_over_16_mib_is_refused_and_the_next_one_answered(
    memory: NotesRepo, how: tuple[str, ...]
) -> None:
    """The shared server ended the session at such a message; in its own process the SDK read
    it whole into memory, however long, and dropped it without an answer."""
    raw = Raw(memory.root, *how)
    try:
        raw.send(json.dumps(INIT).encode() + b"\n")
        assert raw.answer()["id"] == 1
        huge = b'{"jsonrpc": "2.0", "id": 5, "method": "ping", "params": {"pad": "'
        raw.send(huge + b"x" * (17 * 1024 * 1024) + b'"}}\n')
        raw.send(b'{"jsonrpc": "2.0", "id": 6, "method": "ping"}\n')
        refused, answered = raw.answer(), raw.answer()
    finally:
        assert raw.close() == 0
    assert (refused["id"], refused["error"]["code"]) == (None, -32600)
    assert "16 MiB" in refused["error"]["message"]
    assert (answered["id"], answered["result"]) == (6, {})
    assert "refused a message" in mc.server_log(memory.root)


def _wait_for(paths: list[Path], proc: subprocess.Popen[bytes] | None = None) -> None:
    for _ in range(1200):  # the SDK imports and the model loads: at most a minute
        if all(p.exists() for p in paths) or (proc is not None and proc.poll() is not None):
            break
        time.sleep(0.05)
    assert all(p.exists() for p in paths), f"none of {paths} appeared"


def _exit_code(proc: subprocess.Popen[bytes], out: Path) -> int:
    """The server's exit code within 60 s; else a failure showing where each of its threads
    hangs (seen once in a full run at a load average of ~8, never in 100 runs alone)."""
    try:
        return proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGUSR1)  # faulthandler: every thread's stack to daemon.out
        time.sleep(2)
        pytest.fail(f"the server did not stop within 60 s:\n{out.read_text()[-8000:]}")


def _daemon(root: Path, path: Path, script: str) -> subprocess.Popen[bytes]:
    """The shared server of `root` on `path`, run by `script` (its output in daemon.out)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with (root.parent / "daemon.out").open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-c", script, "-C", str(root), "mcp", "--daemon", str(path)],
            stdin=subprocess.DEVNULL, stdout=out, stderr=out, env=mc.isolated_env(root),
        )  # fmt: skip


def _greeted(path: Path) -> socket.socket:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(30)
    conn.connect(str(path))
    assert conn.recv(64).startswith(b"memidx-mcp")
    return conn


@pytest.mark.parametrize(("name", "code"), STOPS)
def test_a_stop_signal_ends_the_shared_server_as_an_idle_stop_does(
    memory: NotesRepo, name: str, code: int
) -> None:
    """Killed by the signal, it left its socket and .memidx/mcp-server.json behind (status
    then named a pid that may be another process's)."""
    root = memory.root
    path = root / ".memidx" / "mcp" / "signal.sock"
    proc = _daemon(root, path, DAEMON)
    record = root / ".memidx" / "mcp-server.json"
    try:
        _wait_for([path, record], proc)
        with _greeted(path):  # a session in progress
            proc.send_signal(getattr(signal, name))
            assert _exit_code(proc, root.parent / "daemon.out") == code
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not path.exists() and not record.exists()
    assert f"memidx mcp shared stopped by {name}" in mc.server_log(root)


# The shared server with its socket's listen held up 1 s, as a loaded machine holds it between
# anyio's bind (on a worker thread) and its listen.
SLOW_LISTEN = (
    "import socket, sys, time, memidx.children as p; p.leave_parent = lambda: None\n"
    "real = socket.socket.listen\n"
    "def slow(self, *args):\n"
    "    time.sleep(1.0)\n"
    "    return real(self, *args)\n"
    "socket.socket.listen = slow\n"
    "from memidx.cli.main import main; raise SystemExit(main(sys.argv[1:]))\n"
)


def test_the_shared_servers_socket_appears_only_once_it_listens(memory: NotesRepo) -> None:
    """Bound before it listened, its socket refused a connection that came in between: a
    client that took the socket's appearance for the server's readiness failed (a test beside
    a full run, at a load of ~12)."""
    root = memory.root
    path = root / ".memidx" / "mcp" / "slow.sock"
    proc = _daemon(root, path, SLOW_LISTEN)
    try:
        for _ in range(24000):  # every 10 ms, as long as the warm-up may take (240 s)
            if path.exists() or proc.poll() is not None:
                break
            time.sleep(0.01)
        with _greeted(path):  # at once: no "Connection refused"
            pass
        assert list(path.parent.glob("*.tmp")) == []
    finally:
        proc.send_signal(signal.SIGTERM)
        assert _exit_code(proc, root.parent / "daemon.out") == 143
    # left once in CI after exit 143: the server's output says whether the 30 s hard exit ended it
    assert not path.exists(), (root.parent / "daemon.out").read_text()[-8000:]


def test_the_shared_server_a_session_started_stops_on_sigterm(memory: NotesRepo) -> None:
    """The server as sessions start it (a detached fork): the same clean stop."""
    root = memory.root

    async def body() -> None:
        async with mc.session(root) as client:
            await client.send_ping()

    mc.run(body)
    record = mc.server_record(root)
    pid, sock = int(str(record["pid"])), Path(str(record["socket"]))
    os.kill(pid, signal.SIGTERM)
    assert mc.gone(pid, 60)
    assert not sock.exists() and mc.server_record(root) == {}
    assert "memidx mcp shared stopped by SIGTERM" in mc.server_log(root)


@pytest.mark.parametrize(("name", "code"), STOPS)
def test_a_stop_signal_ends_a_session_served_in_its_own_process(
    memory: NotesRepo, name: str, code: int
) -> None:
    raw = Raw(memory.root, "--own")
    raw.send(json.dumps(INIT).encode() + b"\n")
    assert raw.answer()["id"] == 1  # serving
    raw.proc.send_signal(getattr(signal, name))
    assert raw.proc.wait(60) == code
    raw.close()
    assert f"memidx mcp stopped by {name}" in mc.server_log(memory.root)


@pytest.mark.parametrize(("name", "code"), STOPS)
def test_a_stop_signal_ends_the_recall_server_as_an_idle_stop_does(
    memory: NotesRepo, models_dir: Path, name: str, code: int
) -> None:
    """Killed by the signal, it left recall.sock and recall.pid behind: the pid file then named
    whatever process took the pid next, for whatever stops the server by it."""
    root = memory.root
    folder = root / ".memidx" / "agents"
    env = mc.isolated_env(root, MEMIDX_MODELS_DIR=str(models_dir))
    with (root.parent / "recall.out").open("ab") as out:
        argv = [str(MEMIDX_BIN), "-C", str(root), "agent", "serve"]
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out, env=env)
    try:
        _wait_for([folder / "recall.sock", folder / "recall.pid"], proc)
        proc.send_signal(getattr(signal, name))
        assert proc.wait(60) == code
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not (folder / "recall.sock").exists() and not (folder / "recall.pid").exists()


def test_since_and_until_read_a_time_without_zone_as_the_servers_local_time(
    memory: NotesRepo,
) -> None:
    """The descriptions said nothing of zones, and a model would give UTC (what it sees in
    hits): a time without one is the server's local time, here fourteen hours east of UTC."""
    from datetime import UTC, datetime, timedelta, timezone

    local = datetime.now(UTC).astimezone(timezone(timedelta(hours=14)))
    hour_ago = (local - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    later = (local + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    found: list[int] = []

    async def body() -> None:
        async with mc.session(memory.root, "--own", TZ="Etc/GMT-14") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            for name in ("since", "until"):
                said = tools["search"].input_schema["properties"][name]["description"]
                assert "local time" in said and "without a zone" in said, said
            await client.call_tool("file_turn", {"text": "the kiritimati fact", "agent": "t"})
            for window in ({"since": hour_ago}, {"since": later}, {"until": hour_ago},
                           {"since": hour_ago, "until": later}):  # fmt: skip
                query = {"query": "kiritimati", "mode": "bm25", **window}
                found.append(mc.data(await client.call_tool("search", query))["count"])

    mc.run(body)
    assert found == [1, 0, 0, 1]
