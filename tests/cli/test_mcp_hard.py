"""An independent tester's hard cases for the MCP server, with real processes on one memory
(its shared server reused from test to test): fronts started at the same instant, a session
killed while its request runs, a client that never reads its answers, searches while the index
is rebuilt, a server replaced after `rm -rf .memidx` by one a later session started, and
arguments holding a NUL character."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memidx.config import load_config
from memidx.errors import UsageError
from memidx.mcp import answers
from memidx.mcp.serve import error_line
from memidx.mcp.warm import WarmIndex
from memidx.portable import file_lock
from tests.cli import mcp_client as mc
from tests.cli.test_mcp_robustness import INIT, Raw
from tests.helpers import MEMIDX_BIN, NotesRepo

INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
QUERY = {"query": "database is locked", "mode": "bm25"}
BIG = "notes/big.md"
BODY = "Two writers on one SQLite file race for the lock and one of them waits. " * 1500


@pytest.fixture(scope="module")
def memory() -> Iterator[NotesRepo]:
    """One memory for the module: a note of ~100 KB beside the one note; its shared server
    (started by the first test) serves the tests after it."""
    with mc.short_memory() as repo:
        repo.git("config", "user.name", "memidx tests")
        repo.git("config", "user.email", "tests@memidx.invalid")
        repo.note("big.md", "Writers race for the lock", BODY)
        repo.commit("big")
        assert repo.memidx("ingest").code == 0
        yield repo


def _line(message: object) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _call(request: int, tool: str, arguments: dict[str, Any]) -> bytes:
    params = {"name": tool, "arguments": arguments}
    return _line({"jsonrpc": "2.0", "id": request, "method": "tools/call", "params": params})


def _opened(root: Path) -> Raw:
    """A front (`memidx mcp`) on raw bytes, its session initialized."""
    raw = Raw(root)
    raw.send(_line(INIT) + _line(INITIALIZED))
    assert raw.answer()["id"] == 1
    return raw


def _answered(raw: Raw, request: int) -> dict[str, Any]:
    """The tool's JSON object of the answer to `request` (the next answer read)."""
    answer = raw.answer()
    assert answer["id"] == request, answer
    result = answer["result"]
    assert not result.get("isError"), result
    return result["structuredContent"]


def _sessions(root: Path, count: int) -> int:
    """The sessions the server records, once they are `count` (within 30 s), else as they are."""
    end = time.monotonic() + 30
    seen = mc.server_record(root).get("sessions")
    while seen != count and time.monotonic() < end:
        time.sleep(0.05)
        seen = mc.server_record(root).get("sessions")
    return int(str(seen))


def test_fronts_started_at_the_same_instant_share_one_server(memory: NotesRepo) -> None:
    """No server runs; three sessions start at once: each front tries to start one, one
    server takes the lock and serves all three."""
    root = memory.root
    raws = [Raw(root) for _ in range(3)]
    try:
        for raw in raws:
            raw.send(_line(INIT) + _line(INITIALIZED) + _call(2, "search", QUERY))
        for raw in raws:
            assert raw.answer()["id"] == 1
            assert _answered(raw, 2)["count"] == 1
        assert _sessions(root, 3) == 3
    finally:
        assert [raw.close() for raw in raws] == [0, 0, 0]
    assert _sessions(root, 0) == 0
    assert mc.server_log(root).count("memidx mcp shared for") == 1


def test_a_session_killed_mid_request_leaves_the_others_served(memory: NotesRepo) -> None:
    """A front killed while its filing waits for the writer lock: the other session is
    answered meanwhile, the writing thread is free again once the filing is made (it is, on
    the server's thread), and the count of sessions comes back down."""
    root = memory.root
    killed, other = _opened(root), _opened(root)
    try:
        with file_lock(root / ".memidx" / "haystack.lock"):
            killed.send(_call(5, "file_turn", {"text": "a fact filed by a killed session"}))
            time.sleep(0.5)  # the filing waits for the lock
            killed.proc.kill()
            assert killed.close() == -signal.SIGKILL
            other.send(_call(6, "search", QUERY))
            assert _answered(other, 6)["count"] == 1
        other.send(_call(7, "file_turn", {"text": "a fact filed after the kill"}))
        assert not _answered(other, 7)["duplicate"]
        other.send(_call(8, "search", {"query": "fact filed", "kind": "turn", "mode": "bm25"}))
        assert _answered(other, 8)["count"] == 2  # the killed session's filing was made
        assert _sessions(root, 1) == 1
    finally:
        assert other.close() == 0
    assert _sessions(root, 0) == 0


def _deaf(root: Path, gets: int, *args: str) -> subprocess.Popen[bytes]:
    """`memidx mcp` whose client asks for `gets` answers of ~130 KB each and reads none."""
    deaf = subprocess.Popen(
        [str(MEMIDX_BIN), "-C", str(root), "mcp", *args], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=mc.isolated_env(root),
    )  # fmt: skip
    assert deaf.stdin is not None
    deaf.stdin.write(_line(INIT) + _line(INITIALIZED))
    for request in range(100, 100 + gets):
        deaf.stdin.write(_call(request, "get", {"ref": BIG, "max_chars": 200_000}))
    deaf.stdin.flush()
    return deaf


def test_a_client_that_never_reads_its_answers_holds_up_no_other_session(
    memory: NotesRepo,
) -> None:
    """A client that asks for ~10 MB of answers and reads none: the server's writes to it
    block, but another session (a new one, too) is answered, and killing the client ends
    its session."""
    root = memory.root
    deaf = _deaf(root, 100)
    try:
        assert _sessions(root, 1) == 1
        other = _opened(root)
        try:
            other.send(_call(2, "search", QUERY))
            assert _answered(other, 2)["count"] == 1
            other.send(_call(3, "get", {"ref": BIG}))
            assert _answered(other, 3)["truncated"]
            assert _sessions(root, 2) == 2
        finally:
            assert other.close() == 0
    finally:
        deaf.kill()
        deaf.wait(60)
    assert _sessions(root, 0) == 0


# A thread of the process blocked writing a pipe no one reads, as the SDK's stdout writer is
# under a client that reads no answer, then the end of a stop by SIGTERM.
BLOCKED = """
import os, sys, threading
from memidx.mcp.serve import leave_blocked_writers
read, write = os.pipe()
threading.Thread(target=os.write, args=(write, b"x" * (1 << 20))).start()
leave_blocked_writers(143, wait=0.2)
"""


def test_a_stopped_server_exits_though_a_thread_blocks_writing_to_its_client() -> None:
    """`memidx mcp --own`, its client reading no answer: SIGTERM stopped the session (`memidx
    mcp stopped by SIGTERM` in the log), then the process waited at exit for ever on the SDK's
    thread blocked writing stdout, past the stop's 30 s limit, which had ended with it."""
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 143, done.stderr


def test_searches_while_the_index_is_rebuilt_are_all_answered(memory: NotesRepo) -> None:
    """`memidx ingest` writing the index under a session that keeps searching: every answer
    is a result (no `database is locked`), and the same one."""
    root = memory.root
    raw = _opened(root)
    try:
        writer = subprocess.Popen(
            [str(MEMIDX_BIN), "-C", str(root), "ingest"], env=mc.isolated_env(root),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        request = 10
        while writer.poll() is None or request == 10:
            raw.send(_call(request, "search", {"query": "writers lock", "mode": "bm25"}))
            found = _answered(raw, request)
            assert [hit["ref"] for hit in found["hits"]] == [BIG], found
            request += 1
        _, err = writer.communicate(timeout=60)
        assert writer.returncode == 0, err
    finally:
        assert raw.close() == 0


def test_a_request_whose_id_no_utf_8_can_write_is_refused_and_the_session_goes_on(
    memory: NotesRepo,
) -> None:
    """An id that is a lone surrogate (JSON may escape one, `"\\ud800"`): its refusal echoed
    the id, which the session's writer could not encode, and the session ended (`memidx mcp
    --own` with a traceback) instead of going on with the next line."""
    raw = _opened(memory.root)
    try:
        raw.send(b'{"jsonrpc": "2.0", "id": "\\ud800", "method": "ping"}\n')
        raw.send(_line({"jsonrpc": "2.0", "id": 6, "method": "ping"}))
        refused, answered = raw.answer(), raw.answer()
    finally:
        assert raw.close() == 0
    assert (refused["id"], refused["error"]["code"]) == (None, -32600)
    assert (answered["id"], answered["result"]) == (6, {})


def test_a_server_replaced_after_rm_rf_leaves_the_new_ones_record(memory: NotesRepo) -> None:
    """`rm -rf .memidx` and `memidx ingest` under a session: the next session starts a new
    server. The old one, ending its last session, wrote its own record over the new one's,
    then removed it as it exited: `memidx status` said no server ran while the new one did."""
    root = memory.root
    old = _opened(root)
    try:
        first = int(str(mc.server_record(root)["pid"]))
        shutil.rmtree(root / ".memidx")
        assert memory.memidx("ingest").code == 0
        new = _opened(root)
        try:
            second = int(str(mc.server_record(root)["pid"]))
            assert second != first
            old.send(_call(2, "search", QUERY))  # the old server follows the new index
            assert _answered(old, 2)["count"] == 1
        finally:
            assert new.close() == 0
    finally:
        assert old.close() == 0
    assert mc.gone(first, 30), "the replaced server is still running"
    assert mc.server_record(root)["pid"] == second  # what `memidx status` shows
    os.kill(second, 0)  # the new server serves on


def test_a_server_of_another_configuration_leaves_the_later_ones_record(
    memory: NotesRepo,
) -> None:
    """Two servers on one memory: a session under another configuration (or after an upgrade:
    another socket) starts its own. The first, its sessions changing, wrote its record over
    the later one's, and `memidx status` named it (then none, once it exited)."""
    root = memory.root
    first = _opened(root)
    try:
        earlier = mc.server_record(root)["pid"]
        later = Raw(root, MEMIDX_MAX_NOTE_BYTES="2000000")
        later.send(_line(INIT) + _line(INITIALIZED))
        assert later.answer()["id"] == 1
        assert later.close() == 0
        recorded = mc.server_record(root)["pid"]
        assert recorded != earlier
    finally:
        assert first.close() == 0
    again = _opened(root)  # on the first server: its record was written before the greeting
    assert again.close() == 0
    assert mc.server_record(root)["pid"] == recorded


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("get", {"ref": "notes/haystack/a\0b@0"}),
        ("remember", {"title": "Busy\0timeout"}),
        ("remember", {"title": "Busy timeout", "folder": "sql\0ite"}),
    ],
)
def test_an_argument_with_a_nul_character_is_a_usage_error_that_writes_nothing(
    memory: NotesRepo, tool: str, arguments: dict[str, str]
) -> None:
    """A NUL (no command line can pass one, a tool call can) failed in the OS or in git with
    a bare ValueError: the client got `Error executing tool` and nothing more, and a title's
    note was left in notes/, written and never committed."""
    config = load_config(memory.root, env={"MEMIDX_ROOT": str(memory.root)})
    before = memory.git("status", "--porcelain", "--untracked-files=all")
    warm = WarmIndex(config)
    try:
        with pytest.raises(UsageError) as refused:
            if tool == "get":
                answers.get(warm, arguments["ref"], 100)
            else:
                body = "Two writers on one SQLite file wait for each other: set a busy timeout."
                answers.remember(config, arguments["title"], body, folder=arguments.get("folder"))
    finally:
        warm.close()
    line = error_line(refused.value, config)
    assert line is not None and line.startswith("memidx: usage error: the ")
    assert "NUL character" in line
    assert memory.git("status", "--porcelain", "--untracked-files=all") == before
