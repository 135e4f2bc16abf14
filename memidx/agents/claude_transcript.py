"""Reading a Claude Code transcript (JSONL): the exchanges of the main conversation and the
summaries of its compactions. Only `user` and `assistant` records carry the conversation; the
many other record types (attachments with hook output and injected context, queue operations,
API request shapes, system records, cost state, file history) are skipped, as are subagents'
records, meta records and the echo of slash commands. A last line without its newline is still
being written: it is read at the next event (memidx/agents/transcript.py)."""

from __future__ import annotations

from typing import cast

from memidx.agents.exchange import Exchanges, tool_note
from memidx.agents.transcript import Transcript, as_dict, records

COMMAND_ECHOES = ("<command-name>", "<command-message>", "<local-command-", "Caveat: ")


def parse(text: str) -> Transcript:
    """The exchanges and compaction summaries in the transcript's complete lines."""
    exchanges = Exchanges()
    summaries: list[str] = []
    seen: set[str] = set()
    for record in records(text):
        if record.get("isSidechain") or record.get("isMeta"):
            continue
        uuid = str(record.get("uuid") or "")
        if uuid and uuid in seen:  # a resumed session may repeat a record
            continue
        seen.add(uuid)
        kind = record.get("type")
        message = as_dict(record.get("message"))
        if message is None:
            continue
        if kind == "user":
            if record.get("isCompactSummary"):
                summaries.append(_prompt_text(message.get("content")) or "")
                continue
            prompt = _prompt_text(message.get("content"))
            if prompt is not None:  # else tool results, command echoes: the current exchange's
                exchanges.prompt(prompt)
        elif kind == "assistant":
            exchanges.said(*_assistant_parts(message.get("content")))
    return Transcript(exchanges.done(), tuple(s for s in summaries if s.strip()))


def _blocks(content: object) -> list[dict[str, object]]:
    if not isinstance(content, list):
        return []
    return [b for b in (as_dict(item) for item in cast(list[object], content)) if b is not None]


def _prompt_text(content: object) -> str | None:
    """The person's text of a user record; None for tool results and command echoes."""
    if isinstance(content, str):
        text = content
    else:
        blocks = _blocks(content)
        if any(b.get("type") == "tool_result" for b in blocks):
            return None
        text = "\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
    text = text.strip()
    if not text or text.startswith(COMMAND_ECHOES):
        return None
    return text


def _assistant_parts(content: object) -> list[str]:
    if isinstance(content, str):
        return [content] if content.strip() else []
    parts: list[str] = []
    for block in _blocks(content):
        kind = block.get("type")
        if kind == "text" and str(block.get("text", "")).strip():
            parts.append(str(block["text"]))
        elif kind == "tool_use":
            parts.append(tool_note(str(block.get("name", "tool")), block.get("input")))
    return parts
