"""`memidx status` says whether the memory's shared MCP server runs: from the record the server
keeps (`.memidx/mcp-server.json`), its pid alive and its socket there; a real server in one
test, records written by hand for the cases a live server cannot show."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from memidx.mcp.daemon import SERVER_RECORD
from memidx.memory.mcp_record import RECORD
from tests.cli.mcp_client import data, run, server_record, session, stop_shared
from tests.helpers import NotesRepo


@pytest.fixture
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NotesRepo]:
    repo = NotesRepo(tmp_path_factory.mktemp("s") / "m")  # short: the socket stays local
    repo.note("sqlite/busy.md", "SQLite says database is locked", "Set a busy timeout and WAL.")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    yield repo
    stop_shared(repo.root)


def record(repo: NotesRepo, **fields: object) -> None:
    (repo.root / ".memidx" / RECORD).write_text(json.dumps(fields) + "\n")


def shown(repo: NotesRepo) -> tuple[str, object]:
    """The status line about the server, and the `mcp_server` field of --json."""
    line = [x for x in repo.memidx("status").out.splitlines() if x.startswith("mcp server:")]
    return line[0], repo.memidx("status", "--json").json()["mcp_server"]


def test_status_names_the_running_shared_server(memory: NotesRepo) -> None:
    async def body() -> None:
        async with session(memory.root) as one:
            answer = await one.call_tool("search", {"query": "database is locked", "mode": "bm25"})
            assert data(answer)["count"] == 1

    run(body)
    server = server_record(memory.root)

    line, field = shown(memory)

    assert line.split(None, 2)[2].startswith(f"running (pid {server['pid']}, ")
    assert field == {"pid": server["pid"], "socket": server["socket"], "running": True,
                     "sessions": None, "idle_seconds": None}  # fmt: skip


def test_status_without_a_server_says_none_runs(memory: NotesRepo) -> None:
    line, field = shown(memory)
    assert "none running" in line and field is None


def test_a_record_left_by_a_dead_server_is_not_running(memory: NotesRepo, tmp_path: Path) -> None:
    dead = os.fork()
    if dead == 0:
        os._exit(0)
    os.waitpid(dead, 0)
    record(memory, pid=dead, socket=str(tmp_path / "gone.sock"))

    line, field = shown(memory)

    assert "not running" in line and f"pid {dead}" in line
    assert isinstance(field, dict) and field["running"] is False


def test_sessions_and_idle_are_shown_when_recorded(memory: NotesRepo, tmp_path: Path) -> None:
    path = tmp_path / "s.sock"
    # a live process of the test's own as the server (the fixture's clean-up stops it)
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        with socket.socket(socket.AF_UNIX) as listening:
            listening.bind(str(path))
            record(memory, pid=alive.pid, socket=str(path), sessions=2, idle_seconds=0)

            line, field = shown(memory)
    finally:
        alive.kill()
        alive.wait()

    assert "running" in line and "2 sessions" in line and "idle 0 s" in line
    assert isinstance(field, dict) and (field["sessions"], field["idle_seconds"]) == (2, 0.0)


def test_status_reads_the_record_the_server_writes() -> None:
    assert RECORD == SERVER_RECORD
