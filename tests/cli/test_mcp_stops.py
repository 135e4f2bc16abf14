"""SIGTERM and SIGHUP on `memidx mcp` as agents run it (the stdio front of the shared server)
and on `memidx mcp --http`, with real processes: a clean stop with exit status 128 + the
signal, no traceback, nothing of the process's own left behind; the shared server goes on
serving the other sessions."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from memidx.portable import file_lock
from tests.cli import mcp_client as mc
from tests.cli.test_mcp_http import free_port, wait_for_port
from tests.cli.test_mcp_robustness import INIT, STOPS, Raw
from tests.helpers import MEMIDX_BIN, NotesRepo


@pytest.fixture
def memory() -> Iterator[NotesRepo]:
    with mc.short_memory() as repo:
        yield repo


def _sessions(root: Path, count: int) -> None:
    """Wait until the shared server counts `count` sessions."""
    for _ in range(600):
        if mc.server_record(root).get("sessions") == count:
            return
        time.sleep(0.05)
    raise AssertionError(f"the server never counted {count} sessions: {mc.server_record(root)}")


@pytest.mark.parametrize(("name", "code"), STOPS)
def test_a_stop_signal_ends_a_session_through_the_shared_server_cleanly(
    memory: NotesRepo, name: str, code: int
) -> None:
    """The front died of the signal (no exit status of its own, -15 or -1 to its parent)."""
    root = memory.root
    other = Raw(root)  # another agent's session, which must go on
    other.send(json.dumps(INIT).encode() + b"\n")
    assert other.answer()["id"] == 1
    raw = Raw(root)
    try:
        raw.send(json.dumps(INIT).encode() + b"\n")
        assert raw.answer()["id"] == 1
        server = mc.server_record(root)["pid"]
        _sessions(root, 2)
        raw.proc.send_signal(getattr(signal, name))
        assert raw.proc.wait(60) == code
        _sessions(root, 1)  # the server ended this session, and only this one
        other.send(b'{"jsonrpc": "2.0", "id": 2, "method": "ping"}\n')
        assert other.answer() == {"jsonrpc": "2.0", "id": 2, "result": {}}
        assert mc.server_record(root)["pid"] == server
    finally:
        raw.close()
        assert other.close() == 0
    errors = (root.parent / "raw.err").read_text(encoding="utf-8")
    assert "Traceback" not in errors and "Error" not in errors, errors


@pytest.mark.parametrize("busy", [False, True], ids=["idle", "filing"])
@pytest.mark.parametrize(("name", "code"), STOPS)
def test_a_stop_signal_ends_the_http_server_as_a_normal_stop(
    tmp_path: Path, name: str, code: int, busy: bool
) -> None:
    """With a client's session open, and a filing in progress (waiting for the writer's lock,
    held here). SIGHUP, which uvicorn does not handle, reached memidx's handler inside the
    event loop and cut uvicorn's shutdown short with a traceback; the signal raised again
    inside the loop left it with the sessions' tasks to end."""
    repo = NotesRepo(tmp_path / "memory")
    port = free_port()
    argv = [str(MEMIDX_BIN), "-C", str(repo.root), "mcp", "--http", "--port", str(port)]
    server = subprocess.Popen(
        argv, env=mc.isolated_env(repo.root), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/mcp"

    async def signalled_in_a_session() -> None:
        async with (
            httpx2.AsyncClient(timeout=30) as http,
            streamable_http_client(url, http_client=http) as (read, write),
            ClientSession(read, write) as client,
        ):
            await client.initialize()
            await client.send_ping()
            filing = None
            with file_lock(repo.root / ".memidx" / "haystack.lock"):
                if busy:
                    arguments = {"text": "a held fact", "agent": "t"}
                    filing = asyncio.create_task(client.call_tool("file_turn", arguments))
                    await asyncio.sleep(1.0)
                server.send_signal(getattr(signal, name))
                await asyncio.sleep(1.0)
            await asyncio.to_thread(server.wait, 60)
            if filing is not None:  # answered or not: the stop is what is tested
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(filing, 10)

    try:
        wait_for_port(port, server)
        mc.run(signalled_in_a_session)
        out, err = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    assert server.returncode == code, err
    assert out == b"" and b"Traceback" not in err and b" ERROR " not in err, err
    assert f"memidx mcp stopped by {name}" in mc.server_log(repo.root)
    assert " failed " not in mc.server_log(repo.root)
    with socket.socket() as probe:  # the port is free again
        assert probe.connect_ex(("127.0.0.1", port)) != 0
