"""Reading a Codex CLI rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`, one
`{timestamp, type, payload}` a line): the person's prompts and the agent's messages from the
`response_item` message records (role `user` and `assistant`), a note of each tool call from
the `response_item` call records, and the summaries of `compacted` records (without the preamble
Codex puts before the summary when it hands it to the model). Developer messages (skills, hook
context) and the environment and AGENTS.md messages Codex sends as the user's are skipped, and
so is the compaction's own output, which 0.171.0 also writes as an assistant message (marked
`compaction_output` in the record's `metadata`): it is the summary, not part of the exchange
before it. `event_msg` records repeat the conversation and are not read (0.171.0 writes
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
# What Codex 0.171.0 writes before the summary in a `compacted` record's message
PREAMBLE = "Another language model started to solve this problem"
PREAMBLE_END = "use the information in this summary to assist with your own analysis:"


def parse(text: str) -> Transcript:
    exchanges = Exchanges()
    summaries: list[str] = []
    for record in records(text):
        kind, payload = record.get("type"), as_dict(record.get("payload")) or {}
        what = payload.get("type")
        if kind == "compacted":
            summaries.append(_summary(str(payload.get("message") or "")))
        elif _compaction_output(record):
            continue
        elif kind == "response_item" and what in TOOL_CALLS:
            exchanges.said(tool_note(_tool_name(payload), _arguments(payload)))
        elif kind == "response_item" and what == "message":
            text = _content_text(payload.get("content"))
            if payload.get("role") == "user" and text and not text.startswith(INJECTED):
                exchanges.prompt(text)
            elif payload.get("role") == "assistant" and text:
                exchanges.said(text)
    return Transcript(exchanges.done(), tuple(s for s in summaries if s.strip()))


def _summary(message: str) -> str:
    if message.startswith(PREAMBLE) and PREAMBLE_END in message:
        return message.split(PREAMBLE_END, 1)[1].strip()
    return message


def _compaction_output(record: dict[str, object]) -> bool:
    return (as_dict(record.get("metadata")) or {}).get("compaction_output") is True


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
