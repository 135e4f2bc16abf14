"""Requests in progress when the client closes its stream, and requests the client cancels
(`notifications/cancelled`), on `memidx mcp`'s stdin in its own process and through the shared
server: a request accepted is answered before the session ends, a batch's answers too; a
cancelled request is never answered, and a batch holding one is answered without it. A filing
made to wait on the clone's writer lock (held here) is the request in progress."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memidx.portable import file_lock
from tests.cli import mcp_client as mc
from tests.cli.test_mcp_batch import initialize
from tests.cli.test_mcp_robustness import Raw
from tests.helpers import MEMIDX_BIN, NotesRepo

HOW = pytest.mark.parametrize("how", [(), ("--own",)], ids=["shared", "own"])
ARGUMENTS = {"text": "a held fact", "agent": "t"}
FILING = {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
          "params": {"name": "file_turn", "arguments": ARGUMENTS}}  # fmt: skip
PING = {"jsonrpc": "2.0", "id": 6, "method": "ping"}
CANCEL = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}}


@pytest.fixture
def memory() -> Iterator[NotesRepo]:
    with mc.short_memory() as repo:
        yield repo


def _session(root: Path, version: str, how: tuple[str, ...], **env: str) -> Raw:
    raw = Raw(root, *how, **env)
    raw.send(initialize(version) + b"\n")
    assert raw.answer()["result"]["protocolVersion"] == version
    raw.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    return raw


def _line(message: object) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _rest(raw: Raw) -> list[Any]:
    """What the server wrote after the last answer read, once it exited (with 0)."""
    assert raw.proc.wait(60) == 0
    time.sleep(0.2)  # the reading thread's last lines
    lines: list[Any] = []
    while not raw.lines.empty():
        lines.append(json.loads(raw.lines.get()))
    return lines


def _filed(answer: dict[str, Any]) -> bool:
    return answer["id"] == 5 and answer["result"]["structuredContent"]["schema"] == "memidx.filed/1"


@HOW
@pytest.mark.parametrize("batched", [False, True], ids=["single", "batch"])
def test_requests_in_progress_when_the_client_ends_its_stream_are_answered(
    memory: NotesRepo, how: tuple[str, ...], batched: bool
) -> None:
    """The SDK cancelled them at the end of the stream: a `Connection closed` error instead of
    the answer, though the filing went on and was made."""
    raw = _session(memory.root, "2025-03-26" if batched else "2025-06-18", how)
    with file_lock(memory.root / ".memidx" / "haystack.lock"):
        raw.send(json.dumps([FILING, PING]).encode() + b"\n" if batched else _line(FILING))
        time.sleep(1.0)  # the filing waits for the lock
        raw.close_stdin()
        time.sleep(1.0)  # the end of the stream reaches the session
    answers = _rest(raw)
    if batched:
        [batch] = answers
        assert sorted(a["id"] for a in batch) == [5, 6]
        assert all(_filed(a) for a in batch if a["id"] == 5)
    else:
        [answer] = answers
        assert _filed(answer), answer


@HOW
def test_a_request_still_running_when_the_finish_wait_ends_is_dropped(
    memory: NotesRepo, how: tuple[str, ...]
) -> None:
    """The wait for the answers in progress once the client's stream ended (60 s; 2 s here,
    MEMIDX_MCP_FINISH_WAIT) has its limit: past it the session ends and the request still
    running is answered `Connection closed`. The filing itself is never cut: the shared server
    makes it on its thread, and `--own` exits once it is made."""
    raw = _session(memory.root, "2025-06-18", how, MEMIDX_MCP_FINISH_WAIT="2")
    with file_lock(memory.root / ".memidx" / "haystack.lock"):
        raw.send(_line(FILING))
        time.sleep(1.0)  # the filing waits for the lock
        raw.close_stdin()
        started = time.monotonic()
        assert raw.answer(timeout=30) == {
            "jsonrpc": "2.0", "id": 5, "error": {"code": -32000, "message": "Connection closed"}
        }  # fmt: skip
        assert time.monotonic() - started < 30  # not the default 60 s
        if how:  # its own writer still waits for the lock, to make the filing
            time.sleep(1.0)
            assert raw.proc.poll() is None
        else:
            assert raw.proc.wait(30) == 0
    assert _rest(raw) == []
    log = mc.server_log(memory.root)
    assert "file_turn not waited for" in log and "file_turn failed" not in log, log


@HOW
@pytest.mark.parametrize("batched", [False, True], ids=["single", "batch"])
def test_a_cancelled_request_is_never_answered_and_its_batch_goes_without_it(
    memory: NotesRepo, how: tuple[str, ...], batched: bool
) -> None:
    """A batch holding a cancelled request waited for ever for its answer, which MCP says
    never comes."""
    raw = _session(memory.root, "2025-03-26" if batched else "2025-06-18", how)
    try:
        with file_lock(memory.root / ".memidx" / "haystack.lock"):
            raw.send(json.dumps([FILING, PING]).encode() + b"\n" if batched else _line(FILING))
            time.sleep(0.5)
            raw.send(_line(CANCEL))
            if batched:
                assert raw.answer(timeout=20) == [{"jsonrpc": "2.0", "id": 6, "result": {}}]
        time.sleep(1.0)  # the filing, let go, is made
        raw.send(_line({"jsonrpc": "2.0", "id": 9, "method": "ping"}))
        assert raw.answer() == {"jsonrpc": "2.0", "id": 9, "result": {}}
    finally:
        raw.close_stdin()
    assert _rest(raw) == []


@HOW
def test_requests_sent_with_the_end_of_the_stream_are_all_answered(
    memory: NotesRepo, how: tuple[str, ...]
) -> None:
    """A client that writes its requests and closes stdin at once (a script, `memidx mcp <
    requests`): in its own process the answer to the last one was lost."""
    lines = [
        initialize("2025-06-18") + b"\n",
        b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n',
        _line({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        _line({"jsonrpc": "2.0", "id": 3, "method": "no/such/method"}),
    ]
    argv = [str(MEMIDX_BIN), "-C", str(memory.root), "mcp", *how]
    done = subprocess.run(argv, input=b"".join(lines), capture_output=True, timeout=120,
                          env=mc.isolated_env(memory.root), check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == [1, 2, 3]
    assert answers[2]["error"]["code"] == -32601


@HOW
def test_a_batch_that_cancels_its_own_request_is_answered_without_it(
    memory: NotesRepo, how: tuple[str, ...]
) -> None:
    raw = _session(memory.root, "2025-03-26", how)
    try:
        with file_lock(memory.root / ".memidx" / "haystack.lock"):
            raw.send(json.dumps([FILING, CANCEL, PING]).encode() + b"\n")
            assert raw.answer(timeout=20) == [{"jsonrpc": "2.0", "id": 6, "result": {}}]
    finally:
        raw.close_stdin()
    assert _rest(raw) == []


# The shared server with the real model, its query embeddings told on stderr and the one of
# "slow" taking 2 s, so the next query's waits behind it.
SPIED = (
    "import sys, time, memidx.children as p; p.leave_parent = lambda: None\n"
    "from memidx.embed import embedders\n"
    "real = embedders.OnnxEmbedder.embed_query\n"
    "def spy(self, text):\n"
    "    print('EMBEDDED', text, file=sys.stderr, flush=True)\n"
    "    time.sleep(2 if 'slow' in text else 0)\n"
    "    return real(self, text)\n"
    "embedders.OnnxEmbedder.embed_query = spy\n"
    "from memidx.cli.main import main; raise SystemExit(main(sys.argv[1:]))\n"
)


def _search(request: int, query: str) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": request, "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": query}}}  # fmt: skip


def test_a_search_cancelled_before_its_embedding_started_is_never_embedded(
    memory: NotesRepo, models_dir: Path
) -> None:
    """The shared server starts a search's embedding as its line arrives: one the client
    cancelled was embedded all the same, holding up every session's searches."""
    import signal
    import socket
    import sys

    root = memory.root
    assert memory.memidx_process("embed", MEMIDX_MODELS_DIR=str(models_dir)).code == 0
    path = root / ".memidx" / "mcp" / "spied.sock"
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    out = root.parent / "spied.out"
    # not the suite's 20 s idle exit: on a loaded machine the warm-up alone has taken that
    env = mc.isolated_env(root, MEMIDX_MODELS_DIR=str(models_dir), MEMIDX_MCP_IDLE="600")
    with out.open("ab") as written:
        argv = [sys.executable, "-c", SPIED, "-C", str(root), "mcp", "--daemon", str(path)]
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=written, stderr=written,
                                env=env)  # fmt: skip
    try:
        warm, deadline = False, time.monotonic() + 240
        while not warm and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
            warm = "EMBEDDED warm up" in out.read_text() and path.exists()
        assert warm and proc.poll() is None, out.read_text()
        with socket.socket(socket.AF_UNIX) as conn:
            conn.settimeout(60)
            conn.connect(str(path))
            stream = conn.makefile("rwb")
            assert stream.readline().startswith(b"memidx-mcp")
            stream.write(initialize("2025-06-18") + b"\n")
            stream.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
            stream.write(_line(_search(2, "slow query")))
            stream.flush()
            time.sleep(0.5)  # its embedding has started
            stream.write(_line(_search(3, "cancelled query")) + _line(CANCEL | {"params": {
                "requestId": 3}}) + _line(_search(4, "last query")))  # fmt: skip
            stream.flush()
            conn.shutdown(socket.SHUT_WR)
            answered = [json.loads(line)["id"] for line in stream.readlines()]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
    embedded = [line for line in out.read_text().splitlines() if line.startswith("EMBEDDED")]
    assert answered == [1, 2, 4]
    assert embedded == ["EMBEDDED warm up", "EMBEDDED slow query", "EMBEDDED last query"]
