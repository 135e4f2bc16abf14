"""A loopback stub of Anthropic's Messages API for driving the real Claude Code CLI in tests.

It listens on 127.0.0.1 only, answers at most `max_requests` requests and stops when the test
ends; every request body is kept for the test to read. A reply is chosen by the test's
`respond(request) -> list of blocks` (a block is {"type": "text", "text": ...} or {"type":
"tool_use", "name": ..., "input": {...}}) and streamed as server-sent events, as the real API
streams: message_start, content_block_start, content_block_delta, content_block_stop,
message_delta, message_stop."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast

Block = dict[str, Any]
Respond = Callable[[dict[str, Any]], list[Block]]
MAX_BODY = 32 * 1024 * 1024


def request_text(request: dict[str, Any]) -> str:
    """All the text a Messages request carries: system prompt, messages, tool results."""
    return json.dumps({k: request.get(k) for k in ("system", "messages")}, ensure_ascii=False)


def last_user_text(request: dict[str, Any]) -> str:
    """The text of the request's last user message (its blocks joined)."""
    for message in reversed(cast(list[dict[str, Any]], request.get("messages") or [])):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        blocks = cast(list[dict[str, Any]], content)
        return "\n".join(str(b.get("text") or b.get("content") or "") for b in blocks)
    return ""


class AnthropicStub:
    """Start with `with AnthropicStub(respond) as stub:`; `stub.url` is the base URL."""

    def __init__(self, respond: Respond, max_requests: int = 60) -> None:
        self.respond = respond
        self.max_requests = max_requests
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def messages(self) -> list[dict[str, Any]]:
        """The Messages requests the model would have answered (not token counts)."""
        with self._lock:
            return [r for r, p in zip(self.requests, self.paths, strict=True) if _is_messages(p)]

    def __enter__(self) -> AnthropicStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)

    def _serve(self) -> None:
        self._server.serve_forever(poll_interval=0.05)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(min(length, MAX_BODY))
                try:
                    request = cast(dict[str, Any], json.loads(body or b"{}"))
                except ValueError:
                    request = {}
                with stub._lock:
                    count = len(stub.requests)
                    stub.requests.append(request)
                    stub.paths.append(self.path)
                if count >= stub.max_requests:
                    self._send(429, b'{"type":"error","error":{"type":"rate_limit_error"}}')
                elif "count_tokens" in self.path:
                    self._send(200, b'{"input_tokens": 12}')
                elif not _is_messages(self.path):
                    self._send(404, b'{"type":"error","error":{"type":"not_found_error"}}')
                else:
                    blocks = stub.respond(request)
                    if request.get("stream"):
                        self._stream(blocks, str(request.get("model") or "stub"))
                    else:
                        self._send(200, json.dumps(_message(blocks, request)).encode())

            def do_GET(self) -> None:
                self._send(404, b'{"type":"error","error":{"type":"not_found_error"}}')

            def _send(self, code: int, data: bytes) -> None:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, blocks: list[Block], model: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for event in _events(blocks, model):
                    data = f"event: {event['type']}\ndata: {json.dumps(event)}\n\n"
                    self.wfile.write(data.encode())
                    self.wfile.flush()
                self.close_connection = True

        return Handler


def _is_messages(path: str) -> bool:
    return path.split("?", 1)[0].rstrip("/").endswith("/v1/messages")


def _stop_reason(blocks: list[Block]) -> str:
    return "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"


def _with_ids(blocks: list[Block]) -> list[Block]:
    return [
        {"id": f"toolu_stub{n:04d}", **b} if b["type"] == "tool_use" else b
        for n, b in enumerate(blocks)
    ]


def _message(blocks: list[Block], request: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "msg_stub", "type": "message", "role": "assistant",
        "model": request.get("model") or "stub", "content": _with_ids(blocks),
        "stop_reason": _stop_reason(blocks), "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 5},
    }  # fmt: skip


def _events(blocks: list[Block], model: str) -> list[dict[str, Any]]:
    start: dict[str, Any] = {
        "id": "msg_stub", "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 1},
    }  # fmt: skip
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(_with_ids(blocks)):
        opening: dict[str, Any]
        if block["type"] == "tool_use":
            opening = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            opening = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        events += [
            {"type": "content_block_start", "index": index, "content_block": opening},
            {"type": "content_block_delta", "index": index, "delta": delta},
            {"type": "content_block_stop", "index": index},
        ]
    events += [
        {
            "type": "message_delta",
            "delta": {"stop_reason": _stop_reason(blocks), "stop_sequence": None},
            "usage": {"output_tokens": 5},
        },
        {"type": "message_stop"},
    ]
    return events
