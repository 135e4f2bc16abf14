"""The requests a `memidx mcp` front answers with an error when the shared server dies under
them (memidx/mcp/pending.py), with the real front and server over stdio: the server is stopped
(SIGSTOP) so that it reads none of the lines sent, then killed, and the front answers every
request it relayed and saw no answer to, and nothing else."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import time
from collections.abc import Iterator
from typing import Any

import pytest

from memidx.mcp.relay import ENDED
from tests.cli import mcp_client as mc
from tests.cli.test_mcp_batch import initialize
from tests.cli.test_mcp_robustness import Raw
from tests.helpers import NotesRepo

CALL: dict[str, object] = {
    "jsonrpc": "2.0",
    "method": "tools/call",
    "params": {"name": "status", "arguments": {}},
}
CANCEL: dict[str, object] = {
    "jsonrpc": "2.0",
    "method": "notifications/cancelled",
    "params": {"requestId": 1},
}
RELAYED = 1.0  # seconds the front is given to relay the lines sent to the stopped server
LIMIT = 30.0  # seconds any wait lasts at most
DRAINED = 1.0  # seconds without a line once the front exited: its output is all read


@pytest.fixture
def memory() -> Iterator[NotesRepo]:
    with mc.short_memory() as repo:
        yield repo


def _errors_when_the_server_dies(memory: NotesRepo, version: str, lines: list[object]) -> Any:
    """The ids the front answers with its error once the server, stopped before it could read
    `lines` (each sent as one JSON line), is killed; the front's exit status must say so."""
    raw = Raw(memory.root)
    server = 0
    try:
        raw.send(initialize(version) + b"\n")
        assert raw.answer()["result"]["protocolVersion"] == version
        raw.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        server = int(str(mc.server_record(memory.root)["pid"]))
        os.kill(server, signal.SIGSTOP)
        raw.send(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
        time.sleep(RELAYED)
        os.kill(server, signal.SIGKILL)
        server = 0
        raw.proc.wait(LIMIT)  # the front exits once it answered what was left
        answers: list[Any] = []
        with contextlib.suppress(queue.Empty):  # its output is read to its end by a thread
            while True:
                answers.append(json.loads(raw.lines.get(timeout=DRAINED)))
        assert all(answer["error"]["code"] == ENDED for answer in answers), answers
        return [answer["id"] for answer in answers]
    finally:
        if server:
            os.kill(server, signal.SIGKILL)
        raw.close()


def test_a_cancel_in_a_batch_the_server_refuses_forgets_no_request(memory: NotesRepo) -> None:
    """Under 2025-06-18 the server refuses a batch whole (each request -32600, nothing run,
    the cancel neither): the front took its cancel as heard, and request 1 got no error."""
    batch = [CANCEL, {"jsonrpc": "2.0", "id": 2, "method": "ping"}]
    assert _errors_when_the_server_dies(memory, "2025-06-18", [{**CALL, "id": 1}, batch]) == [1, 2]


def test_a_cancel_in_a_batch_the_server_serves_is_heard(memory: NotesRepo) -> None:
    batch = [CANCEL, {"jsonrpc": "2.0", "id": 2, "method": "ping"}]
    assert _errors_when_the_server_dies(memory, "2025-03-26", [{**CALL, "id": 1}, batch]) == [2]


def test_a_message_with_a_method_and_an_error_is_a_response_never_answered(
    memory: NotesRepo,
) -> None:
    """The SDK reads it as an error response (the client's to a request of the server's) and
    answers nothing: the front waited for an answer, and gave it a false -32603."""
    error = {"code": -1, "message": "no"}
    lines: list[object] = [{**CALL, "id": 3, "error": error}, {**CALL, "id": 4}]
    assert _errors_when_the_server_dies(memory, "2025-06-18", lines) == [4]


def test_each_of_two_requests_with_one_id_gets_an_error(memory: NotesRepo) -> None:
    """Two requests in flight with id 5 were one: the first answer took both as answered."""
    lines: list[object] = [{**CALL, "id": 5}, {**CALL, "id": 5}, {**CALL, "id": "5"}]
    assert _errors_when_the_server_dies(memory, "2025-06-18", lines) == [5, 5, "5"]
