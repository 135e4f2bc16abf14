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
from memidx.mcp.sdk_reading import (
    Key,
    LineHints,
    as_integer,
    batches_had,
    is_request,
    key_of,
    refused_request,
    sdk_reads,
)

MAX_LINE = MAX_MESSAGE + 2  # and its line end: a longer one is refused
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
            hints = LineHints(line)
            for message in messages:
                self._message(message, served, hints)

    def _message(self, message: dict[str, object], served: bool, hints: LineHints) -> None:
        method = message.get("method")
        if method == "notifications/cancelled" and "id" not in message:  # MCP: a cancelled
            # request is never answered; with an id, the server takes it for no notification
            params = message.get("params")
            if served and isinstance(params, dict) and sdk_reads(message, hints):
                self._cancel(cast(dict[str, object], params).get("requestId"))
        elif (is_request(message, hints) if served else refused_request(message)) and (
            key := key_of(message.get("id"))
        ) is not None:
            self._sent_count += 1
            self._waiting.setdefault(key, []).append(self._sent_count)
            if served and method == "initialize" and (has := batches_had(message)) is not None:
                self._batches = has if sdk_reads(message, hints) else self._batches

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
        if (wanted := as_integer(key_of(value))) is None:
            return
        named = [one for one in self._each() if as_integer(one[0]) == wanted]
        if named:
            key, at = max(named, key=lambda one: one[1])
            self._waiting[key].remove(at)
            self._unread.discard((key, at))
            if not self._waiting[key]:
                del self._waiting[key]

    def _forget(self, value: object) -> None:
        """One request with id `value` answered (or cancelled): the first sent of them."""
        if (key := key_of(value)) is not None and (ats := self._waiting.get(key)):
            self._unread.discard((key, ats.pop(0)))
            if not ats:
                del self._waiting[key]


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
    return key_of(cast(object, value)) if _RESULT.match(text, end) else None
