"""Loopback stubs of the OpenAI Responses API (Codex CLI) and the Gemini API (Gemini CLI): each
answers every request with one fixed text and keeps the requests. 127.0.0.1 only; bounded in
requests and in time.

For compaction: each reports `prompt_tokens` as the prompt's size (large enough, the CLI compacts
before its next request), answers the CLI's compaction requests (Codex 0.171.0's "CONTEXT
CHECKPOINT COMPACTION" prompt, Gemini CLI 0.61.0's `<state_snapshot>` ones) with SUMMARY, and the
Gemini stub can first answer with a call of `tool` (so that one `gemini -p` run makes a second
request, which Gemini compresses before)."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ANSWER = "Stub answer: the zanzibar dev server listens on port 8123."
SUMMARY = "Stub summary: the session was about the quillwort deploy and its lock timeout."


class ModelStub:
    """`with ModelStub("responses" | "gemini") as stub:` then `stub.url`, `stub.bodies`."""

    def __init__(
        self, api: str, max_requests: int = 100, seconds: float = 600, prompt_tokens: int = 10,
        tool: Mapping[str, object] | None = None,
    ) -> None:  # fmt: skip
        self.api, self.max_requests, self.seconds = api, max_requests, seconds
        self.prompt_tokens = prompt_tokens
        self.tool: Mapping[str, object] | None = tool
        self.bodies: list[str] = []
        self.paths: list[str] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                self.send_response(404)
                self.end_headers()

            def do_POST(self) -> None:
                size = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(size).decode("utf-8", "replace")
                if len(stub.bodies) >= stub.max_requests:
                    self.send_response(503)
                    self.end_headers()
                    return
                stub.bodies.append(body)
                stub.paths.append(self.path)
                data, kind = stub.answer(self.path, body)
                self.send_response(200)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.timer = threading.Timer(seconds, self.server.shutdown)

    def answer(self, path: str, body: str) -> tuple[bytes, str]:
        if self.api == "responses":
            text = SUMMARY if "CONTEXT CHECKPOINT COMPACTION" in body else ANSWER
            return _responses(text, self.prompt_tokens, len(self.bodies)), "text/event-stream"
        part: dict[str, object] = {"text": ANSWER}
        if '"responseMimeType":"application/json"' in body.replace(" ", ""):  # its model router
            part = {"text": json.dumps({"complexity_reasoning": "simple", "complexity_score": 5})}
        elif "<state_snapshot>" in body:
            part = {"text": f"<state_snapshot>{SUMMARY}</state_snapshot>"}
        elif self.tool and "streamGenerateContent" in path and not _answers_a_call(body):
            part = {"functionCall": self.tool}
        chunk = {
            "candidates": [{"content": {"parts": [part], "role": "model"},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": self.prompt_tokens, "candidatesTokenCount": 5,
                              "totalTokenCount": self.prompt_tokens + 5},
        }  # fmt: skip
        if "streamGenerateContent" in path:
            return f"data: {json.dumps(chunk)}\r\n\r\n".encode(), "text/event-stream"
        return json.dumps(chunk).encode(), "application/json"

    def __enter__(self) -> ModelStub:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.timer.cancel()
        self.server.shutdown()
        self.server.server_close()


def _answers_a_call(body: str) -> bool:
    """Whether a Gemini request ends with the result of a tool call."""
    contents: list[dict[str, Any]] = json.loads(body).get("contents") or [{}]
    parts: list[dict[str, Any]] = contents[-1].get("parts") or []
    return any("functionResponse" in part for part in parts)


def _responses(text: str, prompt_tokens: int, n: int) -> bytes:
    item: dict[str, object] = {
            "type": "message", "role": "assistant", "id": f"msg_{n}", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}  # fmt: skip
    usage: dict[str, object] = {
        "input_tokens": prompt_tokens, "input_tokens_details": None, "output_tokens": 5,
        "output_tokens_details": None, "total_tokens": prompt_tokens + 5}  # fmt: skip
    events: list[tuple[str, dict[str, object]]] = [
        ("response.created", {"type": "response.created", "response": {"id": f"resp_{n}"}}),
        ("response.output_item.done",
         {"type": "response.output_item.done", "output_index": 0, "item": item}),
        ("response.completed",
         {"type": "response.completed", "response": {"id": f"resp_{n}", "usage": usage}}),
    ]  # fmt: skip
    return "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events).encode()
