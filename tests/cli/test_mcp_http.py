"""`memidx mcp --http`: streamable HTTP on loopback only, unless an explicit flag and a bearer
token say otherwise, and then every request must carry the token."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import time
from pathlib import Path

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from memidx.index.schema_version import SCHEMA_VERSION
from memidx.mcp.hand_over import NEXT
from tests.cli.mcp_client import data, isolated_env, run, text
from tests.helpers import MEMIDX_BIN, NotesRepo

TOKEN = "0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize(
    ("args", "token", "message"),
    [
        (["--host", "0.0.0.0"], None, "is not a loopback address"),
        (["--host", "192.168.1.20", "--port", "9000"], TOKEN, "is not a loopback address"),
        (["--host", "0.0.0.0", "--allow-remote"], None, "needs a bearer token"),
        (["--host", "0.0.0.0", "--allow-remote"], "short", "shorter than 16 characters"),
        (["--port", "70000"], None, "is not a TCP port"),
    ],
)
def test_http_refuses_another_host_without_the_flag_and_a_token(
    tmp_path: Path, args: list[str], token: str | None, message: str
) -> None:
    repo = NotesRepo(tmp_path / "memory")
    env = {"MEMIDX_MCP_TOKEN": token} if token else {}
    done = repo.memidx_process("mcp", "--http", *args, **env)
    assert done.code == 2
    assert message in done.err and done.err.startswith("memidx: usage error: ")
    assert done.out == ""


def test_host_and_port_without_http_are_a_usage_error(tmp_path: Path) -> None:
    done = NotesRepo(tmp_path / "memory").memidx_process("mcp", "--port", "9000")
    assert done.code == 2 and "go with --http" in done.err


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], deadline_s: float = 60) -> None:
    ends = time.monotonic() + deadline_s
    while time.monotonic() < ends:
        assert process.poll() is None, "the server stopped"
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port}")


def test_http_on_loopback_answers_with_the_token_and_refuses_without(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.note("wsl.md", "WSL memory grows", "The vmmem process grows until .wslconfig caps it.")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    port = free_port()
    env = isolated_env(repo.root, MEMIDX_MCP_TOKEN=TOKEN)
    args = [str(MEMIDX_BIN), "-C", str(repo.root), "mcp", "--http", "--port", str(port)]
    server = subprocess.Popen(
        args, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        wait_for_port(port, server)

        async def body() -> tuple[int, int]:
            async with httpx2.AsyncClient(timeout=30) as anonymous:
                refused = await anonymous.post(url, json={"jsonrpc": "2.0", "id": 1})
            headers = {"Authorization": f"Bearer {TOKEN}"}
            async with (
                httpx2.AsyncClient(headers=headers, timeout=30) as http,
                streamable_http_client(url, http_client=http) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                tools = await client.list_tools()
                found = data(await client.call_tool("search", {"query": "vmmem"}))
            assert found["hits"][0]["ref"] == "notes/wsl.md"
            return refused.status_code, len(tools.tools)

        status, tools = run(body)
        assert (status, tools) == (401, 6)
    finally:
        server.terminate()
        out, _ = server.communicate(timeout=30)
    assert out == b""  # stdout is never used but by the stdio protocol
    assert server.returncode is not None


def test_http_that_meets_a_newer_index_refuses_the_call_and_stops(tmp_path: Path) -> None:
    """A newer memidx upgraded the index under the running server: the call that meets it
    gets the one-line refusal, the trace says so, and the server stops as on SIGTERM."""
    repo = NotesRepo(tmp_path / "memory")
    repo.note("wsl.md", "WSL memory grows", "The vmmem process grows until .wslconfig caps it.")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    port = free_port()
    args = [str(MEMIDX_BIN), "-C", str(repo.root), "mcp", "--http", "--port", str(port)]
    server = subprocess.Popen(
        args, env=isolated_env(repo.root), stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    refusal = f"was built by a newer memidx (schema {SCHEMA_VERSION + 1}, this one knows"
    try:
        wait_for_port(port, server)

        async def body() -> tuple[bool, str]:
            async with (
                httpx2.AsyncClient(timeout=30) as http,
                streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http) as (
                    read,
                    write,
                ),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                newer = sqlite3.connect(repo.root / ".memidx" / "index.sqlite")
                newer.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")  # the upgrade
                newer.close()
                answer = await client.call_tool("search", {"query": "vmmem"})
            return bool(answer.is_error), text(answer)

        refused, said = run(body)
        assert refused and "memidx: error: the index at " in said and refusal in said, said
        assert server.wait(timeout=10) == 143  # stopped as on SIGTERM, 1 s after its answer
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=30)
    trace = (repo.root / ".memidx" / "agent-hook-error.log").read_text(encoding="utf-8")
    assert "mcp server" in trace and refusal in trace and NEXT in trace
