"""The `memidx mcp` front waits for an answer to exactly the messages the server answers with
their id (memidx/mcp/pending.py against memidx/mcp/verdict.py, which reads each message as the
SDK does): one it waits for in vain gets the error of a server that died at the session's end
(the front exits 1), and the refusal of one it does not wait for takes the place of a request
in flight with that id. Checked over every mix of the members that decide it."""

from __future__ import annotations

import itertools
import json

import mcp_types
import pytest
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.jsonrpc_dispatcher import cancelled_request_id_from_params
from mcp_types import JSONRPCNotification

from memidx.mcp.pending import Pending
from memidx.mcp.verdict import Good, judge, refused_ids

ABSENT = object()


def _nested(depth: int) -> dict[str, object]:
    """Params `depth` deep in a message (itself 1): about where the SDK's parser stops."""
    value: object = []
    for _ in range(depth - 3):
        value = [value]
    return {"x": value}


DEEP = [_nested(depth) for depth in (201, 202)]
ERROR = {"code": 1, "message": "m"}
MEMBERS: dict[str, list[object]] = {
    "jsonrpc": ["2.0", ABSENT, "1.0"],
    "id": [1, "a", ABSENT, True],
    "method": [ABSENT, "ping", 5],
    "params": [ABSENT, {}, None, 5, {"x": "\ud800"}, *DEEP],
    "result": [ABSENT, {}, None, 5],
    "error": [
        ABSENT, None, ERROR, {**ERROR, "code": " 7 "}, {**ERROR, "code": 1.0},
        {**ERROR, "code": 1.5}, {**ERROR, "code": "\u0661"}, {"code": 1}, "e",
    ],
}  # fmt: skip


def _messages() -> list[dict[str, object]]:
    names = list(MEMBERS)
    return [
        {name: value for name, value in zip(names, values, strict=True) if value is not ABSENT}
        for values in itertools.product(*MEMBERS.values())
    ]


def _answered(message: dict[str, object]) -> bool:
    """Whether the server answers `message`, sent alone, with its id."""
    verdict = judge(json.dumps(message).encode())
    if isinstance(verdict, Good):
        return isinstance(verdict.message, mcp_types.JSONRPCRequest)
    return isinstance(verdict, mcp_types.JSONRPCError) and verdict.id is not None


def _waited(line: bytes) -> bool:
    pending = Pending()
    pending.sent(line + b"\n")
    return bool(pending)


@pytest.mark.parametrize("batch", [False, True], ids=["alone", "in-a-refused-batch"])
def test_the_front_waits_for_what_the_server_answers(batch: bool) -> None:
    wrong: list[dict[str, object]] = []
    for message in _messages():
        if batch:  # no initialize of 2025-03-26: the server refuses the batch
            answered = any(found is not None for found in refused_ids([message]))
            waited = _waited(json.dumps([message]).encode())
        else:
            answered, waited = _answered(message), _waited(json.dumps(message).encode())
        if answered != waited:
            wrong.append(message)
    assert wrong == []


CANCELS: dict[str, list[object]] = {
    "jsonrpc": ["2.0", ABSENT, "1.0"],
    "id": [ABSENT, None, 3],
    "params": [
        ABSENT, {}, None, 5, {"requestId": 1}, {"requestId": "1"}, {"requestId": " 1"},
        {"requestId": True}, {"requestId": 1.0}, {"requestId": "x"},
        {"requestId": 1, "reason": "\ud800"}, {"requestId": 1, "reason": 5},
        *({"requestId": 1, **deep} for deep in DEEP),
    ],
    "result": [ABSENT, {}, 5],
}  # fmt: skip


def test_the_front_takes_a_request_as_cancelled_when_the_sdk_cancels_it() -> None:
    """Cancelled, it is never answered: a cancel of "1" the SDK applies to request 1 (its
    coerce_request_id) left 1 waiting in the front, and one the server refuses (no JSON-RPC
    2.0, a lone surrogate) was taken as applied."""
    names = list(CANCELS)
    wrong: list[dict[str, object]] = []
    for values in itertools.product(*CANCELS.values()):
        cancel: dict[str, object] = {"method": "notifications/cancelled"}
        cancel.update({n: v for n, v in zip(names, values, strict=True) if v is not ABSENT})
        line = json.dumps(cancel).encode()
        verdict = judge(line)
        named = None
        if isinstance(verdict, Good) and isinstance(verdict.message, JSONRPCNotification):
            named = cancelled_request_id_from_params(verdict.message.params)
        pending = Pending()
        pending.sent(b'{"jsonrpc":"2.0","id":1,"method":"tools/call"}\n' + line + b"\n")
        cancelled = named is not None and coerce_request_id(named) == 1
        if cancelled is (1 in pending.left()):
            wrong.append(cancel)
    assert wrong == []
