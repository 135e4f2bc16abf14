"""Loopback stubs of the OpenAI Responses API (Codex CLI) and the Gemini API (Gemini CLI): each
answers every request with one fixed text and keeps the requests. 127.0.0.1 only; bounded in
requests and in time."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ANSWER = "Stub answer: the zanzibar dev server listens on port 8123."


class ModelStub:
    """`with ModelStub("responses" | "gemini") as stub:` then `stub.url`, `stub.bodies`."""

    def __init__(self, api: str, max_requests: int = 100, seconds: float = 600) -> None:
        self.api, self.max_requests, self.seconds = api, max_requests, seconds
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
            return _responses(), "text/event-stream"
        text = ANSWER
        if '"responseMimeType":"application/json"' in body.replace(" ", ""):  # its model router
            text = json.dumps({"complexity_reasoning": "simple", "complexity_score": 5})
        chunk = {
            "candidates": [{"content": {"parts": [{"text": text}], "role": "model"},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                              "totalTokenCount": 15},
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


def _responses() -> bytes:
    item: dict[str, object] = {
            "type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
            "content": [{"type": "output_text", "text": ANSWER, "annotations": []}]}  # fmt: skip
    usage: dict[str, object] = {
        "input_tokens": 10, "input_tokens_details": None, "output_tokens": 5,
        "output_tokens_details": None, "total_tokens": 15}  # fmt: skip
    events: list[tuple[str, dict[str, object]]] = [
        ("response.created", {"type": "response.created", "response": {"id": "resp_1"}}),
        ("response.output_item.done",
         {"type": "response.output_item.done", "output_index": 0, "item": item}),
        ("response.completed",
         {"type": "response.completed", "response": {"id": "resp_1", "usage": usage}}),
    ]  # fmt: skip
    return "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events).encode()
