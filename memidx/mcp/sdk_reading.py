"""How the shared server reads a message a `memidx mcp` front relays (pure: the front does not
import the SDK, which memidx/mcp/verdict.py and memidx/mcp/batch.py ask): whether it answers
it with its id, a cancel applies, an initialize settles a revision with batches. Each rule is
the server's, checked against it (tests/unit/test_mcp_pending_agrees.py): where the front read
a message otherwise, it gave a request the server never answers the error of a server that
died, or none to one the server answered and then died before."""

from __future__ import annotations

import json
import re
from typing import cast

from memidx.text import is_utf8

Key = tuple[str, str | int]  # an id and its type: 1 and "1" are two requests
BATCH_REVISION = "2025-03-26"  # the one protocol revision with batches (memidx/mcp/batch.py)
# The deepest message the SDK's JSON parser reads (pydantic-core's limit, a scalar counted):
# one deeper it refuses, with its id (memidx/mcp/verdict.py reads that with json)
SDK_DEPTH = 201
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")  # how a lone surrogate can be written in JSON


class LineHints:
    """Whether a message of a line may nest too deep, and may hold a lone surrogate: asked of
    the line once, and only when a message's reading turns on it (a scan of each 16 MiB line
    cost the front more than its json.loads)."""

    __slots__ = ("_found", "line")

    def __init__(self, line: bytes) -> None:
        self.line = line
        self._found: tuple[bool, bool] | None = None

    def found(self) -> tuple[bool, bool]:
        if self._found is None:
            brackets = self.line.count(b"[") + self.line.count(b"{")
            self._found = brackets >= SDK_DEPTH - 1, bool(_SURROGATE.search(self.line))
        return self._found


def sdk_reads(message: dict[str, object], hints: LineHints) -> bool:
    """Whether the SDK reads `message` (`hints`: its line's) at all: JSON-RPC 2.0's, nested no
    deeper than its parser reads, with no string UTF-8 cannot write (a lone surrogate). What
    it cannot read the server refuses, with the message's id when it has one: a cancel so
    refused cancels nothing, an initialize settles no revision (either was taken as read)."""
    if message.get("jsonrpc") != "2.0":
        return False
    deep, surrogate = hints.found()
    if deep and _deeper(message, SDK_DEPTH):
        return False
    return not surrogate or is_utf8(json.dumps(message, ensure_ascii=False))


def _deeper(value: object, most: int) -> bool:
    """Whether `value` nests deeper than `most` (a scalar is 1 deep, a list of one 2)."""
    level: list[tuple[object, int]] = [(value, 1)]
    while level:
        item, depth = level.pop()
        if depth > most:
            return True
        if isinstance(item, dict):
            level.extend((one, depth + 1) for one in cast(dict[str, object], item).values())
        elif isinstance(item, list):
            level.extend((one, depth + 1) for one in cast(list[object], item))
    return False


def is_request(message: dict[str, object], hints: LineHints) -> bool:
    """Whether the server answers `message`, alone or in a batch it serves, with its id: a
    request, or what the SDK cannot read (see sdk_reads), which it refuses so."""
    return _shaped_as_request(message) or not sdk_reads(message, hints)


def key_of(value: object) -> Key | None:
    if isinstance(value, str) and is_utf8(value):  # "\ud800": the server answers it id null
        return ("str", value)
    if isinstance(value, int) and not isinstance(value, bool):
        return ("int", value)
    return None


def _shaped_as_request(message: dict[str, object]) -> bool:
    """Whether the SDK reads `message` as a request it answers: it reads one with a
    `method` and an `error` object it takes (an integer code, a message) as an error
    response, the client's answer to a request of the server's, answered by nothing (the
    front waited for it, and gave it an error of a server that died); and one no request
    (its method no string, or its params neither an object nor null), with a `result`
    object, as a response too. Anything else with an id is refused with it (memidx/mcp/
    verdict.py), a message without a method too: its refusal took the place of a request in
    flight with that id."""
    method = message.get("method")
    if _error_object(message.get("error")):
        return False
    params = message.get("params")
    a_request = isinstance(method, str) and (params is None or isinstance(params, dict))
    return a_request or not isinstance(message.get("result"), dict)


def refused_request(message: dict[str, object]) -> bool:
    """Whether the server answers a member of a batch it refuses (memidx/mcp/verdict.py
    asked_id): any with an id, but a response's (a `result` or an `error` of any shape). One
    with a `method` and a `result` was taken as waiting, was refused nothing, and got the
    error of a server that died at the session's end."""
    return "result" not in message and "error" not in message


def as_integer(key: Key | None) -> Key | None:
    """`key` as the SDK correlates a cancel with a request: a string int() reads is that
    integer."""
    if key is not None and key[0] == "str":
        try:
            return ("int", int(key[1]))
        except ValueError:
            pass
    return key


def _error_object(value: object) -> bool:
    """Whether `value` is a JSON-RPC error object as the SDK's (pydantic's) lax reading
    takes one: a string message, and a code that reads as an integer (`1`, `true`, `1.0`,
    `" 7 "`)."""
    if not isinstance(value, dict):
        return False
    fields = cast(dict[str, object], value)
    code = fields.get("code")
    if not isinstance(fields.get("message"), str):
        return False
    if isinstance(code, float):
        return code.is_integer() and abs(code) < 2**63
    if isinstance(code, str):  # ASCII digits alone: int() reads "\u0661" too, pydantic not
        try:
            int(code)
        except ValueError:
            return False
        return code.isascii()
    return isinstance(code, int)


def batches_had(initialize: dict[str, object]) -> bool | None:
    """Whether the revision an `initialize` request settles on has batches: the one it asks
    for when the server has it, else the server's latest, and only 2025-03-26 has them
    (memidx/mcp/batch.py negotiated, which the front does not import: it loads the SDK);
    None for one without params, which settles nothing."""
    params = initialize.get("params")
    if not isinstance(params, dict):
        return None
    return cast(dict[str, object], params).get("protocolVersion") == BATCH_REVISION
