"""The requests a `memidx mcp` front relayed and has not seen answered (memidx/mcp/pending.py):
the ids the front answers with an error when it ends a hung server, and the reason it looks
at the server at all (a session whose requests are all answered is never looked at)."""

from __future__ import annotations

import pytest

from memidx.mcp.batch import BATCH_VERSIONS
from memidx.mcp.pending import Pending
from memidx.mcp.sdk_reading import BATCH_REVISION

CALL = b'{"jsonrpc":"2.0","id":1,"method":"tools/call"}\n'
CANCEL = b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}\n'
INIT = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"REV"}}\n'
INIT_0326, INIT_0618 = INIT.replace(b"REV", b"2025-03-26"), INIT.replace(b"REV", b"2025-06-18")
CANCELS = b"[" + CANCEL.rstrip() + b"]\n"  # a batch of one cancel
BATCH = b'[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","id":2,"method":"x"}]\n'


@pytest.mark.parametrize(
    ("sent", "answered", "left"),
    [
        (CALL, b"", [1]),
        (CALL, b'{"jsonrpc":"2.0","id":1,"result":{}}\n', []),
        (CALL, b'{"jsonrpc":"2.0","id":"1","result":{}}\n', [1]),  # "1" is not 1
        (CALL, b'{"jsonrpc":"2.0","id":1,"error":{}}\n', []),
        (b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n', b"", []),
        (CALL + CANCEL, b"", []),
        # with an id it is a request the server answers, and cancels nothing (verdict.py)
        (CALL + CANCEL.replace(b'"method"', b'"id":2,"method"'), b"", [1, 2]),
        (CALL + CANCEL.replace(b'"method"', b'"id":null,"method"'), b"", [1]),
        (BATCH, b'[{"jsonrpc":"2.0","id":"a","result":{}}]\n', [2]),
        (b'{"jsonrpc":"2.0","id":true,"method":"ping"}\n', b"", []),  # no id a server answers
        (b'{"jsonrpc":"2.0","id":3,"method":\n', b"", []),  # no JSON: answered with id null
        (b"\xff\n", b"", []),
        # what the server refuses with id null (memidx/mcp/verdict.py) waits for no answer
        (b"\xef\xbb\xbf" + CALL, b"", []),  # a BOM: no JSON
        (b'{"jsonrpc":"2.0","id":1,"method":"x","params":"\xed\xa0\x80"}\n', b"", []),  # no UTF-8
        (b'{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}\n', b"", []),  # no id UTF-8 writes
        (CALL, b'{"jsonrpc":"2.0","id":1,"method":"roots/list"}\n', [1]),  # the server asks
        # a batch is refused whole before an initialize of 2025-03-26: its cancel is not heard
        (CALL + b"[" + CANCEL.rstrip() + b"]\n", b"", [1]),
        (INIT_0326 + CALL + b"[" + CANCEL.rstrip() + b"]\n", b"", [0]),
        (INIT_0618 + CALL + b"[" + CANCEL.rstrip() + b"]\n", b"", [0, 1]),
        (
            INIT_0326 + b"[" + INIT_0618.rstrip() + b"]\n" + CALL + b"[" + CANCEL.rstrip() + b"]\n",
            b"",
            [0, 0, 1],
        ),
        (b"[" + INIT_0326.rstrip() + b"]\n" + CALL + b"[" + CANCEL.rstrip() + b"]\n", b"", [0, 1]),
        # the SDK reads a method with an error object as an error response: never answered
        (CALL.replace(b"}\n", b',"error":{"code":-1,"message":"no"}}\n'), b"", []),
        (CALL.replace(b"}\n", b',"error":{"code":" 7 ","message":"no"}}\n'), b"", []),
        (CALL.replace(b"}\n", b',"error":{"code":1.5,"message":"no"}}\n'), b"", [1]),
        (CALL.replace(b"}\n", b',"error":{"code":1}}\n'), b"", [1]),
        (CALL.replace(b"}\n", b',"result":{}}\n'), b"", [1]),  # a request, to the SDK
        (CALL.replace(b'"tools/call"}', b'5,"result":{}}'), b"", []),
        # a batch refused answers each member with an id but a response's (verdict.asked_id)
        (b'[{"jsonrpc":"2.0","id":7,"method":"ping","result":{}}]\n', b"", []),
        (b'[{"jsonrpc":"2.0","id":7,"method":"ping","error":null}]\n', b"", []),
        (b'[{"jsonrpc":"2.0","id":7}]\n', b"", [7]),
        (INIT_0326 + b'[{"jsonrpc":"2.0","id":7,"method":"ping","result":{}}]\n', b"", [0, 7]),
        # a cancel names its request as the SDK reads it: "1" is 1, the last sent of them
        (CALL + CANCEL.replace(b":1}", b':"1"}'), b"", []),
        (CALL.replace(b":1,", b':"01",') + CANCEL, b"", []),
        (CALL + CANCEL.replace(b":1}", b':"x1"}'), b"", [1]),
        (CALL + CALL.replace(b":1,", b':"1",') + CANCEL, b"", [1]),
        # an initialize the server refuses settles no revision: the batch is refused still
        (INIT_0326.replace(b'"jsonrpc":"2.0",', b"") + CALL + CANCELS, b"", [0, 1]),
        (INIT_0326.replace(b"}}", b',"x":"\\ud800"}}') + CALL + CANCELS, b"", [0, 1]),
        # a cancel the server refuses (no JSON-RPC 2.0, a lone surrogate) cancels nothing
        (CALL + CANCEL.replace(b'"jsonrpc":"2.0",', b""), b"", [1]),
        (CALL + CANCEL.replace(b"}}", b',"why":"\\udc00"}}'), b"", [1]),
        # two in flight with one id are two: the first answer answers one
        (CALL + CALL, b'{"jsonrpc":"2.0","id":1,"result":{}}\n', [1]),
        (CALL + CALL + CANCEL, b"", [1]),
    ],
)
def test_requests_wait_until_answered(sent: bytes, answered: bytes, left: list[object]) -> None:
    pending = Pending()
    pending.sent(sent)
    pending.answered(answered)
    assert pending.left() == left
    assert bool(pending) == bool(left)


def test_lines_split_across_chunks_are_read_whole() -> None:
    pending = Pending()
    for at in range(0, len(CALL), 7):
        pending.sent(CALL[at : at + 7])
    assert pending.left() == [1]
    pending.answered(b'{"jsonrpc":"2.0","id":1,')
    assert pending.mid_line()
    pending.answered(b'"result":{}}\n')
    assert not pending
    assert not pending.mid_line()


@pytest.mark.parametrize(
    ("line_end", "over", "left"),
    [(b"\n", 0, [1]), (b"\r\n", 0, [1]), (b"\n", 1, []), (b"\r\n", 1, []), (b"\n", 2, [])],
)
def test_a_request_over_the_servers_limit_waits_for_no_answer(
    monkeypatch: pytest.MonkeyPatch, line_end: bytes, over: int, left: list[object]
) -> None:
    """The server refuses a message over framing.MAX_MESSAGE (its line end not counted) with
    id null: one a byte or a chunk over it, whose newline came in the chunk that took it
    over, was read, and at the session's end got the error of a server that died."""
    from memidx.mcp import pending

    monkeypatch.setattr(pending, "MAX_LINE", 64 + 2)
    head = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"'
    line = head + b"x" * (64 - len(head) - 3 + over) + b'"}}'
    assert len(line) == 64 + over
    waiting = Pending()
    waiting.sent(b"{}\n" + line + line_end)  # in one chunk with its newline
    assert waiting.left() == left


def test_the_last_line_of_the_clients_input_without_a_newline_is_a_request_too() -> None:
    """The server serves it when the input ends (memidx/mcp/framing.py): it waits for its
    answer, and gets an error when the server dies first."""
    waiting = Pending()
    waiting.sent(CALL.rstrip(b"\n"))
    assert not waiting
    waiting.input_ended()
    assert waiting.left() == [1]


def test_a_request_sent_while_an_answer_too_long_to_read_streams_is_not_taken_as_answered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server writes an answer line after reading the requests it answers: one sent while
    a line too long to read was still arriving was taken as maybe answered by it, so a server
    dying under a client done writing left it without an answer, and the front exited 0."""
    from memidx.mcp import pending

    monkeypatch.setattr(pending, "MAX_LINE", 100)
    answer = b'{"jsonrpc":"2.0","id":1,"result":{"text":"' + b"x" * 300 + b'"}}\n'
    waiting = Pending()
    waiting.sent(CALL)
    waiting.answered(answer[:150])  # over MAX_LINE: skipped to its end
    waiting.sent(CALL.replace(b'"id":1', b'"id":2'))
    waiting.answered(answer[150:250])  # still the same line
    waiting.answered(answer[250:])
    assert waiting.unanswered() == [2]
    waiting.answered(b'{"jsonrpc":"2.0","id":2,"result":{}}\n')
    assert not waiting.unanswered()


def test_an_answer_too_long_to_read_answers_the_id_it_starts_with(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One response too long to read answers its own id, read from its first bytes: the
    other requests waiting with it were taken as maybe answered (no error for them when the
    server died), and it got the error of a server that died besides its answer."""
    from memidx.mcp import pending

    monkeypatch.setattr(pending, "MAX_LINE", 100)
    answer = b'{"jsonrpc":"2.0","id":1,"result":{"text":"' + b"x" * 300 + b'"}}\n'
    waiting = Pending()
    waiting.sent(CALL + CALL.replace(b'"id":1', b'"id":2'))
    waiting.answered(answer[:150])
    assert waiting.unanswered() == [1, 2]  # 1 until its line is all relayed
    waiting.answered(answer[150:])
    assert (waiting.left(), waiting.unanswered()) == ([2], [2])
    batch = b"[" + answer.rstrip(b"\n") + b"]\n"  # a batch's ids are not read: maybe any
    waiting.answered(batch[:150])
    waiting.answered(batch[150:])
    assert (waiting.left(), waiting.unanswered()) == ([2], [])


def test_an_answer_too_long_to_read_nested_too_deep_where_its_id_goes_is_no_response(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from memidx.mcp import pending

    monkeypatch.setattr(pending, "MAX_LINE", 100)
    waiting = Pending()
    waiting.sent(CALL)
    waiting.answered(b'{"jsonrpc":"2.0","id":' + b"[" * 4000)  # no traceback
    waiting.answered(b"\n")
    assert (waiting.left(), waiting.unanswered()) == ([1], [])


def test_the_front_knows_the_revision_with_batches_as_the_server_does() -> None:
    assert frozenset({BATCH_REVISION}) == BATCH_VERSIONS
