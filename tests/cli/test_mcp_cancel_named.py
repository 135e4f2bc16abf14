"""What a session answers once the client cancels a request by an id that reads as its own
("2" for 2: the SDK correlates them, mcp.shared.dispatcher.coerce_request_id), and what the
`memidx mcp` front then waits for (memidx/mcp/pending.py), with the real front and server over
stdio. The SDK cancelled the request and never answered it, but the server's answers waited for
it: a batch holding it was never sent, the session's end waited a minute (FINISH_WAIT), and the
front then gave it the error of a server that died and exited 1."""

from __future__ import annotations

import contextlib
import json
import queue
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cli import mcp_client as mc
from tests.cli.test_mcp_batch import HOW, initialize
from tests.cli.test_mcp_robustness import Raw
from tests.helpers import NotesRepo

ANSWER = 30.0  # seconds an answer may take at most
FINISH = 20.0  # seconds the server waits for the answers in progress at the session's end
ENDED = 10.0  # seconds the session may take to end, with none in progress
DRAINED = 1.0  # seconds without a line once the front exited: its output is all read
STATUS: dict[str, object] = {
    "jsonrpc": "2.0",
    "method": "tools/call",
    "params": {"name": "status", "arguments": {}},
}


def _cancel(named: object) -> dict[str, object]:
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": named}}


@pytest.fixture(scope="module")
def memory() -> Iterator[NotesRepo]:
    """One memory for the module: its sessions only read it (status, ping), and the shared
    server the first one starts serves the next ones (a server start is ~1 s of CPU)."""
    with mc.short_memory() as repo:
        yield repo


def _session(memory: NotesRepo, how: tuple[str, ...], version: str, lines: list[object]) -> Raw:
    raw = Raw(memory.root, *how, MEMIDX_MCP_FINISH_WAIT=str(FINISH))
    raw.send(initialize(version) + b"\n")
    assert raw.answer()["result"]["protocolVersion"] == version
    raw.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    raw.send(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
    return raw


def _rest(raw: Raw) -> tuple[int, list[Any]]:
    """The exit status once stdin is closed, and every line said after what was read; the
    session ends at once: no request is in progress."""
    began = time.monotonic()
    code = raw.close()
    assert time.monotonic() - began < ENDED
    said: list[Any] = []
    with contextlib.suppress(queue.Empty):
        while True:
            said.append(json.loads(raw.lines.get(timeout=DRAINED)))
    return code, said


@HOW
def test_a_batch_is_sent_without_the_request_cancelled_by_its_id_as_a_string(
    memory: NotesRepo, how: tuple[str, ...]
) -> None:
    batch: list[object] = [{**STATUS, "id": 1}, {**STATUS, "id": 2}]
    raw = _session(memory, how, "2025-03-26", [batch, _cancel("2")])
    try:
        answered: list[Any] = json.loads(raw.lines.get(timeout=ANSWER))  # one array
        assert [answer["id"] for answer in answered] == [1]
        raw.send(b'{"jsonrpc": "2.0", "id": 9, "method": "ping"}\n')
        assert raw.answer(ANSWER) == {"jsonrpc": "2.0", "id": 9, "result": {}}
    finally:
        code, said = _rest(raw)
    assert (code, said) == (0, [])


@pytest.mark.parametrize(("asked", "named"), [(1, "1"), ("07", 7)])
def test_a_request_cancelled_by_an_id_that_reads_as_its_own_is_not_waited_for(
    memory: NotesRepo, asked: object, named: object
) -> None:
    raw = _session(memory, (), "2025-06-18", [{**STATUS, "id": asked}, _cancel(named)])
    raw.send(b'{"jsonrpc": "2.0", "id": 9, "method": "ping"}\n')
    try:
        assert raw.answer(ANSWER) == {"jsonrpc": "2.0", "id": 9, "result": {}}
    finally:
        code, said = _rest(raw)
    assert (code, said) == (0, [])


def test_a_request_in_a_batch_refused_whole_is_answered_only_when_the_server_answers_it(
    memory: NotesRepo,
) -> None:
    """The server refuses no member with a `result` (a response, verdict.asked_id): the front
    took one with a `method` too as waiting, and gave it the error of a server that died."""
    batch: list[object] = [{"jsonrpc": "2.0", "id": 7, "method": "ping", "result": {}}]
    batch.append({**STATUS, "id": 8})
    raw = _session(memory, (), "2025-06-18", [batch])
    try:
        assert raw.answer(ANSWER)["id"] == 8
    finally:
        code, said = _rest(raw)
    assert (code, said) == (0, [])


def test_of_two_requests_with_one_id_the_one_not_cancelled_is_answered(
    memory: NotesRepo,
) -> None:
    """The SDK cancels one of them (the last); the server's answers took the id as cancelled
    and dropped the other's answer too: its client waited for ever, and the front gave it the
    error of a server that died."""
    calls: list[object] = [{**STATUS, "id": 5}, {**STATUS, "id": 5}, _cancel(5)]
    raw = _session(memory, (), "2025-06-18", calls)
    try:
        assert raw.answer(ANSWER)["result"]["content"]
    finally:
        code, said = _rest(raw)
    assert (code, said) == (0, [])
