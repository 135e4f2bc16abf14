"""The requests a `memidx mcp` front relayed to the shared server and has not seen answered
(pure: lines in, ids out). The front looks at the server only while one waits (memidx/mcp/
relay.py), and answers those left with an error when the server it relayed them to is ended.
Only what tells a request's id is read: the rest of each message is the server's to judge."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import cast

from memidx.mcp.framing import MAX_MESSAGE, Frame, Framing, TooLong
from memidx.text import is_utf8

MAX_LINE = MAX_MESSAGE + 2  # and its line end: a longer one is refused
Key = tuple[str, str | int]  # an id and its type: 1 and "1" are two requests
BATCH_REVISION = "2025-03-26"  # the one protocol revision with batches (memidx/mcp/batch.py)
HEAD = 4096  # the bytes kept of an answer line too long to read, to read its id from
# A response as the server writes it: its id before its result or error
_RESPONSE = re.compile(rb'[ \t\r]*\{"jsonrpc": ?"2\.0", ?"id": ?')
_RESULT = re.compile(r'[ \t\r]*, ?"(?:result|error)":')


class Pending:
    """Request ids sent and not answered, from the bytes each way."""

    def __init__(self) -> None:
        # the count each request waiting was heard at, by id: two in flight with one id are
        # two (the server answers each), and were one, the first answer taking both
        self._waiting: dict[Key, list[int]] = {}
        self._sent = Framing(MAX_LINE - 2)  # as the server cuts them: a line over its limit
        # that ended in the chunk that took it there was read, the server refusing it id null
        self._answered = _Lines()
        self._unread: set[tuple[Key, int]] = set()  # waiting while an answer line too long
        # to read came: maybe answered by it
        self._sent_count = 0  # requests heard so far
        self._line_began = 0  # the count when the server's answer line in progress began
        self._line_marked = False  # its waiting requests are in _unread (once a line)
        self._batches = False  # the session's revision has batches (memidx/mcp/batch.py)

    def __bool__(self) -> bool:
        return bool(self._waiting)

    def left(self) -> list[str | int]:
        """The ids of the requests waiting, in the order they were sent (one per request)."""
        return [key[1] for key, _ in sorted(self._each(), key=lambda one: one[1])]

    def sent(self, chunk: bytes) -> None:
        """The client's bytes, on their way to the server."""
        self._heard(self._sent.feed(chunk))

    def input_ended(self) -> None:
        """The client's input ended: its last line, without a newline, is a message too (the
        server serves it, memidx/mcp/framing.py)."""
        self._heard(self._sent.end())

    def _heard(self, frames: Sequence[Frame]) -> None:
        for line in (frame for frame in frames if not isinstance(frame, TooLong)):
            messages, batch = _parsed(line)
            served = not batch or self._batches  # a batch is run whole, or none of it is:
            # the server refuses each request of it, and hears none of its cancels
            for message in messages:
                self._message(message, served)

    def _message(self, message: dict[str, object], served: bool) -> None:
        method = message.get("method")
        if method == "notifications/cancelled" and "id" not in message:  # MCP: a cancelled
            # request is never answered; with an id, the server takes it for no notification
            params = message.get("params")
            if served and isinstance(params, dict) and _sdk_reads(message):
                self._cancel(cast(dict[str, object], params).get("requestId"))
        elif (_is_request(message) if served else _refused_request(message)) and (
            key := _key(message.get("id"))
        ) is not None:
            self._sent_count += 1
            self._waiting.setdefault(key, []).append(self._sent_count)
            if served and method == "initialize" and (has := _batches_had(message)) is not None:
                self._batches = has if _sdk_reads(message) else self._batches

    def answered(self, chunk: bytes) -> None:
        """The server's bytes, on their way to the client."""
        begins = b"\n" in chunk or not (self._answered.part or self._answered.over)
        for message in self._answered.messages(chunk):
            if "method" not in message:
                self._forget(message.get("id"))
        if begins:  # the line this chunk leaves open began in it
            self._line_began, self._line_marked = self._sent_count, False
        if self._answered.over and not self._line_marked:  # a line too long to read may
            # answer those waiting when it began, never one sent while it came (the server
            # answers only what it has read); one response answers the id it starts with
            began, self._line_marked = self._line_began, True
            if _head_id(self._answered.head) is not None:
                return
            self._unread.update(one for one in self._each() if one[1] <= began)

    def unanswered(self) -> list[str | int]:
        """The ids no answer was seen for, but those an answer line too long to read (past
        MAX_LINE, skipped) may have answered: a request sent after it still counts (a skipped
        line once made the front take every request left as answered, for the session)."""
        waiting = sorted(self._each(), key=lambda one: one[1])
        return [key[1] for key, at in waiting if (key, at) not in self._unread]

    def mid_line(self) -> bool:
        """Whether the server's last bytes ended inside a line."""
        return bool(self._answered.part) or self._answered.over

    def _each(self) -> list[tuple[Key, int]]:
        return [(key, at) for key, ats in self._waiting.items() for at in ats]

    def _cancel(self, value: object) -> None:
        """The request a cancel names, as the SDK finds it (mcp.shared.dispatcher's
        coerce_request_id): the last sent whose id is `value` or reads as the same integer
        ("7" and 7). Taken literally, a cancel of "7" left request 7 waiting: the SDK never
        answers it, and the front gave it the error of a server that died."""
        if (wanted := _as_integer(_key(value))) is None:
            return
        named = [one for one in self._each() if _as_integer(one[0]) == wanted]
        if named:
            key, at = max(named, key=lambda one: one[1])
            self._waiting[key].remove(at)
            self._unread.discard((key, at))
            if not self._waiting[key]:
                del self._waiting[key]

    def _forget(self, value: object) -> None:
        """One request with id `value` answered (or cancelled): the first sent of them."""
        if (key := _key(value)) is not None and (ats := self._waiting.get(key)):
            self._unread.discard((key, ats.pop(0)))
            if not ats:
                del self._waiting[key]


def _key(value: object) -> Key | None:
    if isinstance(value, str) and is_utf8(value):  # "\ud800": the server answers it id null
        return ("str", value)
    if isinstance(value, int) and not isinstance(value, bool):
        return ("int", value)
    return None


class _Lines:
    """Whole lines out of chunks, each read as JSON-RPC messages (a batch's members too)."""

    def __init__(self) -> None:
        self.part = bytearray()
        self.over = False  # the line so far is past MAX_LINE: skipped to its end
        self.head = b""  # its first bytes

    def messages(self, chunk: bytes) -> list[dict[str, object]]:
        found: list[dict[str, object]] = []
        *lines, rest = chunk.split(b"\n")
        for line in lines:
            if not self.over:
                self.part += line
                found += _read(bytes(self.part))
            elif (key := _head_id(self.head)) is not None:  # a response, now all relayed
                found.append({"id": key[1]})
            self.part.clear()
            self.over = False
        if not self.over:
            self.part += rest
            if len(self.part) > MAX_LINE:
                self.head = bytes(self.part[:HEAD])
                self.part.clear()
                self.over = True
        return found


def _read(line: bytes) -> list[dict[str, object]]:
    """The messages of a line, a batch's members too (see _parsed)."""
    return _parsed(line)[0]


def _parsed(line: bytes) -> tuple[list[dict[str, object]], bool]:
    """The messages of a line, and whether it is a batch, as the server reads it (memidx/mcp/
    verdict.py): UTF-8 alone, no BOM. json.loads took a BOM from bytes, UTF-16 and bytes no
    UTF-8 holds (a lone surrogate's), so a request the server refuses with id null stayed
    waiting: at the session's end it got the error of a server that died, and the front
    exited 1."""
    try:
        value: object = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return [], False
    members = cast(list[object], value) if isinstance(value, list) else [value]
    found = [cast(dict[str, object], m) for m in members if isinstance(m, dict)]
    return found, isinstance(value, list)


def _is_request(message: dict[str, object]) -> bool:
    """Whether the server reads `message` as a request it answers: the SDK reads one with a
    `method` and an `error` object it takes (an integer code, a message) as an error
    response, the client's answer to a request of the server's, answered by nothing (the
    front waited for it, and gave it an error of a server that died); and one no request
    (its method no string, or its params neither an object nor null), with a `result`
    object, as a response too. Anything else with an id is refused with it (memidx/mcp/
    verdict.py), a message without a method or `"jsonrpc": "2.0"` too: its refusal took the
    place of a request in flight with that id."""
    method = message.get("method")
    if message.get("jsonrpc") != "2.0":
        return True
    if _error_object(message.get("error")):
        return False
    params = message.get("params")
    a_request = isinstance(method, str) and (params is None or isinstance(params, dict))
    return a_request or not isinstance(message.get("result"), dict)


def _refused_request(message: dict[str, object]) -> bool:
    """Whether the server answers a member of a batch it refuses (memidx/mcp/verdict.py
    asked_id): any with an id, but a response's (a `result` or an `error` of any shape). One
    with a `method` and a `result` was taken as waiting, was refused nothing, and got the
    error of a server that died at the session's end."""
    return "result" not in message and "error" not in message


def _sdk_reads(message: dict[str, object]) -> bool:
    """Whether the SDK reads `message` (a method, params an object) at all: JSON-RPC 2.0's,
    its params no string UTF-8 cannot write (the server refuses those, memidx/mcp/verdict.py).
    A cancel it refuses cancels nothing (its request is still answered), an initialize it
    refuses settles no revision (a batch after it is still refused)."""
    text = json.dumps(message.get("params"), ensure_ascii=False)
    return message.get("jsonrpc") == "2.0" and is_utf8(text)


def _as_integer(key: Key | None) -> Key | None:
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


def _batches_had(initialize: dict[str, object]) -> bool | None:
    """Whether the revision an `initialize` request settles on has batches: the one it asks
    for when the server has it, else the server's latest, and only 2025-03-26 has them
    (memidx/mcp/batch.py negotiated, which the front does not import: it loads the SDK);
    None for one without params, which settles nothing."""
    params = initialize.get("params")
    if not isinstance(params, dict):
        return None
    return cast(dict[str, object], params).get("protocolVersion") == BATCH_REVISION


def _head_id(head: bytes) -> Key | None:
    """The id of an answer line too long to read, from its first bytes, when it is one
    response as the server writes it (`{"jsonrpc":"2.0","id":7,"result":`); None for a
    batch of them, or anything else."""
    start = _RESPONSE.match(head)
    if start is None:
        return None
    text = head[start.end() :].decode("utf-8", "surrogateescape")
    try:
        value, end = json.JSONDecoder().raw_decode(text)
    except (ValueError, RecursionError):  # `[[[...`: a broken server's, read as no id
        return None
    return _key(cast(object, value)) if _RESULT.match(text, end) else None
