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


def _session(root: Path, version: str, how: tuple[str, ...]) -> Raw:
    raw = Raw(root, *how)
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
