"""`memidx mcp --http`: streamable HTTP on loopback only, unless an explicit flag and a bearer
token say otherwise, and then every request must carry the token."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.cli.mcp_client import data, isolated_env, run
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
