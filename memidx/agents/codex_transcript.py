"""Reading a Codex CLI rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`, one
`{timestamp, type, payload}` a line): the person's prompts and the agent's messages from the
`response_item` message records (role `user` and `assistant`), a note of each tool call from
the `response_item` call records, and the summaries of `compacted` records. Developer messages
(skills, hook context) and the environment and AGENTS.md messages Codex sends as the user's are
skipped; `event_msg` records repeat the conversation and are not read (0.171.0 writes
`item_completed`, older versions `user_message` and `agent_message`). A line still being
written is read at the next event (memidx/agents/transcript.py)."""

from __future__ import annotations

import json
from typing import cast

from memidx.agents.exchange import Exchanges, tool_note
from memidx.agents.transcript import Transcript, as_dict, records

INJECTED = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md",
    "<permissions",
    "<skills_",
)
TOOL_CALLS = ("function_call", "custom_tool_call", "local_shell_call")


def parse(text: str) -> Transcript:
    exchanges = Exchanges()
    summaries: list[str] = []
    for record in records(text):
        kind, payload = record.get("type"), as_dict(record.get("payload")) or {}
        what = payload.get("type")
        if kind == "compacted":
            summaries.append(str(payload.get("message") or ""))
        elif kind == "response_item" and what in TOOL_CALLS:
            exchanges.said(tool_note(_tool_name(payload), _arguments(payload)))
        elif kind == "response_item" and what == "message":
            text = _content_text(payload.get("content"))
            if payload.get("role") == "user" and text and not text.startswith(INJECTED):
                exchanges.prompt(text)
            elif payload.get("role") == "assistant" and text:
                exchanges.said(text)
    return Transcript(exchanges.done(), tuple(s for s in summaries if s.strip()))


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content.strip()
    parts = [as_dict(item) or {} for item in cast(list[object], content or [])]
    texts = [
        str(p.get("text") or "") for p in parts if p.get("type") in ("input_text", "output_text")
    ]
    return "\n".join(t for t in texts if t).strip()


def _tool_name(payload: dict[str, object]) -> str:
    if payload.get("type") == "local_shell_call":
        return "shell"
    return str(payload.get("name") or "tool")


def _arguments(payload: dict[str, object]) -> object:
    if payload.get("type") == "local_shell_call":
        action = as_dict(payload.get("action")) or {}
        command = action.get("command")
        return (
            {"command": " ".join(str(c) for c in cast(list[object], command))}
            if isinstance(command, list)
            else {}
        )
    raw = payload.get("arguments", payload.get("input"))
    if isinstance(raw, str):
        try:
            loaded: object = json.loads(raw)
        except ValueError:
            return {"command": raw}
        if isinstance(loaded, dict):
            table = cast(dict[str, object], loaded)
            command = table.get("command")
            if isinstance(command, list):
                return {**table, "command": " ".join(str(c) for c in cast(list[object], command))}
            return table
    return raw
