"""`memidx mcp` over stdio through the memory's one shared server: sessions after the first
find it warm, the front never loads the SDK or the model, the server goes away when idle, a
socket left by a killed server is taken over, and `--own` / MEMIDX_MCP_SHARED=0 serve in the
session's own process."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from memidx.config import load_config
from memidx.frozen import replace
from memidx.mcp.shared import socket_for
from tests.cli.mcp_client import (
    data,
    gone,
    isolated_env,
    one_note_memory,
    run,
    server_log,
    server_record,
    session,
)
from tests.helpers import NotesRepo

QUERY = {"query": "database is locked", "mode": "bm25"}


@pytest.fixture
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NotesRepo]:
    with one_note_memory(tmp_path_factory.mktemp("s")) as repo:
        yield repo


def _log(root: Path) -> str:
    path = root / ".memidx" / "mcp.log"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def _socket(root: Path) -> Path:
    return Path(str(server_record(root)["socket"]))


def _server_pid(root: Path) -> int:
    return int(str(server_record(root)["pid"]))


def test_sessions_share_one_warm_server_that_loads_once(memory: NotesRepo) -> None:
    root = memory.root

    async def body() -> None:
        async with session(root) as first, session(root) as second:
            assert data(await first.call_tool("search", QUERY))["count"] == 1
            assert data(await second.call_tool("search", QUERY))["count"] == 1
        async with session(root) as third:  # the first two are gone; the server stays
            assert data(await third.call_tool("search", QUERY))["count"] == 1

    run(body)
    log = _log(root)
    assert log.count("memidx mcp shared for") == 1, log
    assert log.count("index and model loaded") <= 1, log
    assert log.count("search answered") == 3, log
    sock = _socket(root)
    assert sock.parent == root / ".memidx" / "mcp"
    assert stat.S_IMODE(sock.stat().st_mode) == 0o600
    assert stat.S_IMODE(sock.parent.stat().st_mode) == 0o700


def test_the_front_never_imports_the_sdk_or_the_model(memory: NotesRepo) -> None:
    root = memory.root
    run(lambda: _one_search(root))  # the shared server runs now
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "memidx", "-C", str(root), "mcp"],
        env=isolated_env(root), input=b"", capture_output=True, check=False, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == b""  # nothing of its own on the protocol's stream
    lines = done.stderr.decode().splitlines()
    modules = {ln.rsplit("|", 1)[1].strip() for ln in lines if "|" in ln}
    heavy = ("mcp", "pydantic", "numpy", "asyncio", "anyio", "onnxruntime")
    assert not {m for m in modules if m.split(".")[0] in heavy}
    assert "memidx.mcp.shared" in modules


async def _one_search(root: Path, *args: str, **env: str) -> None:
    async with session(root, *args, **env) as client:
        assert data(await client.call_tool("search", QUERY))["count"] == 1


def test_an_idle_server_exits_and_removes_its_socket(memory: NotesRepo) -> None:
    root = memory.root
    seen: list[tuple[int, Path]] = []

    async def body() -> None:
        async with session(root, MEMIDX_MCP_IDLE="1") as client:
            assert data(await client.call_tool("search", QUERY))["count"] == 1
            seen.append((_server_pid(root), _socket(root)))  # while the session holds it

    run(body)
    ((pid, sock),) = seen
    assert gone(pid, 30), "the idle server is still running"
    assert not sock.exists()
    assert server_record(root) == {}
    assert "no session for 1 s: exiting" in _log(root)


def test_a_killed_servers_socket_is_taken_over(memory: NotesRepo) -> None:
    root = memory.root
    run(lambda: _one_search(root))
    pid, sock = _server_pid(root), _socket(root)
    os.kill(pid, signal.SIGKILL)
    assert gone(pid, 10)
    assert sock.exists(), "a killed server leaves its socket behind"
    run(lambda: _one_search(root))  # a new server replaces the dead one's socket
    assert _server_pid(root) != pid


@pytest.mark.parametrize("how", ["flag", "variable"])
def test_own_serves_in_the_sessions_process(memory: NotesRepo, how: str) -> None:
    root = memory.root
    if how == "flag":
        run(lambda: _one_search(root, "--own"))
    else:
        run(lambda: _one_search(root, MEMIDX_MCP_SHARED="0"))
    assert server_record(root) == {}
    assert "memidx mcp stdio for" in _log(root)


def test_another_configuration_or_a_long_path_gets_another_socket(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "m")
    config = replace(load_config(repo.root, env={"MEMIDX_ROOT": str(repo.root)}), root=Path("/m"))
    here = socket_for(config)  # a short path: in the memory's own state folder
    assert here is not None and here.parent == Path("/m/.memidx/mcp")
    assert socket_for(replace(config, found_by="user")) == here  # however it was found
    assert socket_for(replace(config, notes_dir="other")) != here
    deep = replace(config, root=tmp_path / ("d" * 120))
    elsewhere = socket_for(deep)
    assert elsewhere is not None and len(str(elsewhere)) <= 100
    assert not str(elsewhere).startswith(str(deep.root))
    assert elsewhere.parent.name.startswith("memidx")


def test_a_session_sees_the_server_die(memory: NotesRepo) -> None:
    """The server killed under a session: the client sees the connection close at once, the
    front says so, and the next session starts a new server."""
    root = memory.root
    killed: list[int] = []

    async def body() -> None:
        async with session(root) as client:
            assert data(await client.call_tool("search", QUERY))["count"] == 1
            killed.append(_server_pid(root))
            os.kill(killed[0], signal.SIGKILL)
            # the front answers a request it relayed; one sent after the front exited, the SDK
            with pytest.raises(
                MCPError, match=r"ended this session before answering|Connection closed"
            ):
                await asyncio.wait_for(client.call_tool("search", QUERY), 30)

    run(body)
    assert "memidx: error: the shared MCP server closed the session" in server_log(root)
    run(lambda: _one_search(root))
    assert _server_pid(root) not in killed
    assert _log(root).count("memidx mcp shared for") == 2


def test_a_server_whose_socket_was_deleted_leaves_the_new_one_alone(memory: NotesRepo) -> None:
    """`.memidx/mcp` deleted under a running server (as `rm -rf .memidx` would): the next
    session starts another; the first one, once idle, exits without touching its socket."""
    root = memory.root
    run(lambda: _one_search(root, MEMIDX_MCP_IDLE="3"))
    first = _server_pid(root)
    shutil.rmtree(root / ".memidx" / "mcp")
    run(lambda: _one_search(root, MEMIDX_MCP_IDLE="30"))
    second, sock = _server_pid(root), _socket(root)
    assert second != first
    assert gone(first, 30), "the first server is still running"
    assert sock.exists(), "the first server removed the second one's socket"
    run(lambda: _one_search(root))
    assert _server_pid(root) == second


def _zombie_children(pid: int) -> list[int]:
    """The children of `pid` that ended and were never waited for (<defunct>)."""
    found: list[int] = []
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:  # "pid (comm) state ppid ...": the comm may hold spaces and parentheses
            state, ppid = stat_file.read_text().rsplit(")", 1)[1].split()[:2]
        except (OSError, IndexError, ValueError):
            continue  # a process that just ended
        if ppid == str(pid) and state == "Z":
            found.append(int(stat_file.parent.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="reads /proc (Linux)")
def test_the_front_that_started_the_server_keeps_no_zombie_child(memory: NotesRepo) -> None:
    """The front forks twice to start the server; the child in between ends at once, and the
    front reaps it rather than keeping it <defunct> for the whole session."""
    root = memory.root
    front = subprocess.Popen(
        [sys.executable, "-m", "memidx", "-C", str(root), "mcp"], env=isolated_env(root),
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for _ in range(600):  # the server writes its record once it holds its lock
            if server_record(root).get("pid"):
                break
            time.sleep(0.05)
        assert server_record(root).get("pid"), server_log(root)
        zombies: list[int] = []
        end = time.monotonic() + 1.0  # time enough for a child that ends to become one
        while not zombies and time.monotonic() < end:
            zombies = _zombie_children(front.pid)
            time.sleep(0.05)
        assert front.poll() is None, "the front should be serving its session still"
        assert zombies == [], f"the front keeps <defunct> children {zombies}"
    finally:
        assert front.stdin is not None
        front.stdin.close()
        front.wait(timeout=60)
