"""A JSON-RPC batch (a JSON array of messages on one line) on `memidx mcp`'s stdin, in its own
process and through the shared server: served as one array of answers in a session that
negotiated MCP 2025-03-26 (which says a server MUST receive batches), each request of it
refused with its own id under a later revision (2025-06-18 removed batches)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from memidx.mcp.batch import batch_items, negotiated
from tests.cli import mcp_client as mc
from tests.cli.test_mcp_robustness import Raw
from tests.helpers import NotesRepo

HOW = pytest.mark.parametrize("how", [(), ("--own",)], ids=["shared", "own"])
BATCH: list[dict[str, object]] = [
    {"jsonrpc": "2.0", "id": 2, "method": "ping"},
    {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1,
                                                                       "progress": 1}},
    {"jsonrpc": "2.0", "id": "three", "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": 5},  # not a request: refused
    {"jsonrpc": "2.0", "id": 77, "result": {}},  # a response (to nothing): never answered
]  # fmt: skip


def initialize(version: str) -> bytes:
    params = {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    return json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
    ).encode()


@pytest.fixture(scope="module")
def memory() -> Iterator[NotesRepo]:
    """One memory for the module: its sessions only read it (ping, tools/list), and the shared
    server the first one starts serves the next ones (a server start is ~1 s of CPU)."""
    with mc.short_memory() as repo:
        yield repo


def _batch(root: Path, version: str, how: tuple[str, ...], lines: int) -> list[Any]:
    """The first `lines` lines answering BATCH in a session of `version`, each parsed; the
    session must answer a ping after them."""
    raw = Raw(root, *how)
    try:
        raw.send(initialize(version) + b"\n")
        assert raw.answer()["result"]["protocolVersion"] == version
        raw.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        raw.send(json.dumps(BATCH).encode() + b"\r\n")
        answers: list[Any] = [raw.answer() for _ in range(lines)]
        raw.send(b'{"jsonrpc": "2.0", "id": 9, "method": "ping"}\n')
        assert raw.answer() == {"jsonrpc": "2.0", "id": 9, "result": {}}
    finally:
        assert raw.close() == 0
    return answers


@HOW
def test_a_batch_is_served_as_one_array_under_2025_03_26(
    memory: NotesRepo, how: tuple[str, ...]
) -> None:
    """It got one -32600 with id null: the client waited for ever on the batch's ids."""
    [batch] = _batch(memory.root, "2025-03-26", how, lines=1)
    by_id: dict[str | int, dict[str, Any]] = {answer["id"]: answer for answer in batch}
    assert sorted(by_id, key=str) == [2, 4, "three"]  # the notification is not answered
    assert by_id[2]["result"] == {}
    tools: list[dict[str, Any]] = by_id["three"]["result"]["tools"]
    assert {tool["name"] for tool in tools} >= {"search", "get"}
    assert by_id[4]["error"]["code"] == -32600


@HOW
def test_each_request_of_a_batch_is_refused_with_its_id_under_2025_06_18(
    memory: NotesRepo, how: tuple[str, ...]
) -> None:
    refused = _batch(memory.root, "2025-06-18", how, lines=3)
    assert [(a["id"], a["error"]["code"]) for a in refused] == [
        (2, -32600), ("three", -32600), (4, -32600)
    ]  # fmt: skip
    assert "not served under MCP 2025-06-18" in refused[0]["error"]["message"]


@pytest.mark.parametrize(
    ("text", "items"),
    [
        (b'[{"id": 1}, 2]', [{"id": 1}, 2]),
        (b" \r\n[1]", [1]),
        (b"[]", None),  # no batch: JSON-RPC answers it one -32600 with id null
        (b"[1", None),
        (b'{"id": 1}', None),
        (b"\xff[1]", None),
    ],
)
def test_a_batch_is_a_json_array_of_at_least_one_message(
    text: bytes, items: list[object] | None
) -> None:
    assert batch_items(text) == items


@pytest.mark.parametrize(
    ("asked", "version"),
    [
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("1999-01-01", LATEST_HANDSHAKE_VERSION),
    ],
)
def test_the_version_an_initialize_settles_on_is_the_sdks(asked: str, version: str) -> None:
    assert negotiated(initialize(asked).decode()) == version
    assert negotiated('{"jsonrpc": "2.0", "id": 1, "method": "ping"}') is None


NOTIFICATIONS: list[dict[str, object]] = [
    {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1,
                                                                       "progress": 1}},
    {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
]  # fmt: skip


LINES: list[tuple[bytes, list[tuple[object, int]]]] = [
    (json.dumps(NOTIFICATIONS).encode(), []),
    (b"[]", [(None, -32600)]),
]


@pytest.fixture(scope="module")
def answered_lines(memory: NotesRepo) -> Callable[[tuple[str, ...], str], list[list[Any]]]:
    """The answers to each of LINES, sent one after the other in one session of a way and a
    version (each line followed by a ping, whose answer ends what is read for it), that
    session run once and read by the test of each line."""
    sessions: dict[tuple[tuple[str, ...], str], list[list[Any]]] = {}

    def answered(how: tuple[str, ...], version: str) -> list[list[Any]]:
        if (how, version) not in sessions:
            sessions[how, version] = _lines_session(memory.root, how, version)
        return sessions[how, version]

    return answered


def _lines_session(root: Path, how: tuple[str, ...], version: str) -> list[list[Any]]:
    raw = Raw(root, *how)
    try:
        raw.send(initialize(version) + b"\n")
        assert raw.answer()["result"]["protocolVersion"] == version
        raw.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        answers: list[list[Any]] = []
        for ping, (line, answered) in enumerate(LINES, start=9):
            raw.send(line + b"\n" + _ping(ping))
            answers.append(_until_ping(raw, ping, len(answered) + 3))
    finally:
        assert raw.close() == 0
    return answers


def _until_ping(raw: Raw, ping: int, most: int) -> list[Any]:
    """The answers read up to the ping's (`most` at most): a line answered wrongly (one answer
    too many or too few) is seen in its own test alone, not also in the next line's."""
    answers: list[Any] = []
    while len(answers) < most and not (answers and _is_ping(answers[-1], ping)):
        answers.append(raw.answer())
    return answers


def _is_ping(answer: object, ping: int) -> bool:
    return isinstance(answer, dict) and cast(dict[str, object], answer).get("id") == ping


def _ping(request: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request, "method": "ping"}).encode() + b"\n"


@HOW
@pytest.mark.parametrize("version", ["2025-03-26", "2025-06-18", LATEST_HANDSHAKE_VERSION])
@pytest.mark.parametrize(("line", "answered"), LINES, ids=["notifications", "empty"])
def test_a_batch_of_notifications_alone_gets_no_answer_and_an_empty_one_gets_one(
    answered_lines: Callable[[tuple[str, ...], str], list[list[Any]]],
    how: tuple[str, ...],
    version: str,
    line: bytes,
    answered: list[tuple[object, int]],
) -> None:
    """Under a revision without batches a batch of notifications got one -32600 with id null,
    which JSON-RPC 2.0 forbids: a batch of notifications alone is answered with nothing."""
    index = [sent for sent, _ in LINES].index(line)
    answers = answered_lines(how, version)[index]
    assert [(a["id"], a["error"]["code"]) for a in answers[:-1]] == answered
    assert answers[-1] == {"jsonrpc": "2.0", "id": 9 + index, "result": {}}
