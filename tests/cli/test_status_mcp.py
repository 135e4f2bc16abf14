"""`memidx status` says whether the memory's shared MCP server runs: from the record the server
keeps (`.memidx/mcp-server.json`), its pid alive and its socket there; a real server in one
test, records written by hand for the cases a live server cannot show."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest

from memidx.mcp.daemon import SERVER_RECORD
from memidx.memory.mcp_record import RECORD
from tests.cli.mcp_client import data, one_note_memory, run, server_record, session, stop_shared
from tests.helpers import NotesRepo


@pytest.fixture
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NotesRepo]:
    with one_note_memory(tmp_path_factory.mktemp("s")) as repo:
        yield repo


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
    assert isinstance(field, dict)
    shown_fields = cast(dict[str, object], field)
    idle = shown_fields.pop("idle_seconds")
    assert shown_fields == {"pid": server["pid"], "socket": server["socket"], "running": True,
                            "sessions": 0}  # fmt: skip
    assert isinstance(idle, float) and 0 <= idle < 60  # since the session ended


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
            record(memory, pid=alive.pid, socket=str(path), sessions=2, idle_since=None)
            busy = shown(memory)
            record(memory, pid=alive.pid, socket=str(path), sessions=0, idle_since=time.time() - 90)
            idle = shown(memory)
    finally:
        alive.kill()
        alive.wait()

    line, field = busy
    assert "running" in line and "2 sessions" in line and not re.search(r"idle \d", line)
    assert isinstance(field, dict) and (field["sessions"], field["idle_seconds"]) == (2, None)
    line, field = idle
    assert "0 sessions" in line and "idle 9" in line  # 90 s and the few the test took
    assert isinstance(field, dict) and field["sessions"] == 0
    assert isinstance(field["idle_seconds"], float) and 90 <= field["idle_seconds"] < 120


def test_the_shared_server_records_its_sessions_and_since_when_it_is_idle(
    memory: NotesRepo,
) -> None:
    """The real server: one session in progress, then none and idle since it ended."""

    async def one_session() -> tuple[str, object]:
        async with session(memory.root) as client:
            await client.call_tool("status", {})
            return shown(memory)

    try:
        during = run(one_session)
        deadline = time.monotonic() + 30
        after = shown(memory)
        while "0 sessions" not in after[0] and time.monotonic() < deadline:
            time.sleep(0.1)
            after = shown(memory)
    finally:
        stop_shared(memory.root, timeout=30.0)
    assert "1 session" in during[0] and not re.search(r"idle \d", during[0]), during
    assert isinstance(during[1], dict) and during[1]["sessions"] == 1
    assert "0 sessions" in after[0] and re.search(r"idle \d+ s", after[0]), after
    assert isinstance(after[1], dict) and isinstance(after[1]["idle_seconds"], float)


def test_status_reads_the_record_the_server_writes() -> None:
    assert RECORD == SERVER_RECORD
