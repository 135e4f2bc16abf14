"""Reading a Claude Code transcript (JSONL): the exchanges of the main conversation and the
summaries of its compactions. Only `user` and `assistant` records carry the conversation; the
many other record types (attachments with hook output and injected context, queue operations,
API request shapes, system records, cost state, file history) are skipped, as are subagents'
records, meta records and the echo of slash commands. A last line without its newline is still
being written: it is read at the next event."""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

from memidx.agents.exchange import Exchange, tool_note
from memidx.frozen import Value

MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024
COMMAND_ECHOES = ("<command-name>", "<command-message>", "<local-command-", "Caveat: ")


class Transcript(Value):
    """What memidx files from one transcript."""

    exchanges: tuple[Exchange, ...]
    summaries: tuple[str, ...] = ()


def read_text(path: Path) -> str:
    """The complete lines of a transcript file ("" when it cannot be read)."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_TRANSCRIPT_BYTES)
    except OSError:
        return ""
    end = data.rfind(b"\n")
    return data[: end + 1].decode("utf-8", errors="replace") if end >= 0 else ""


def parse(text: str) -> Transcript:
    """The exchanges and compaction summaries in the transcript's complete lines."""
    exchanges: list[Exchange] = []
    summaries: list[str] = []
    user: str | None = None
    said: list[str] = []
    seen: set[str] = set()
    for line in text.splitlines():
        record = _record(line)
        if record is None or record.get("isSidechain") or record.get("isMeta"):
            continue
        uuid = str(record.get("uuid") or "")
        if uuid and uuid in seen:  # a resumed session may repeat a record
            continue
        seen.add(uuid)
        kind = record.get("type")
        message = _dict(record.get("message"))
        if message is None:
            continue
        if kind == "user":
            if record.get("isCompactSummary"):
                summaries.append(_prompt_text(message.get("content")) or "")
                continue
            prompt = _prompt_text(message.get("content"))
            if prompt is None:
                continue  # tool results, command echoes: part of the current exchange
            if user is not None:
                exchanges.append(Exchange(user, tuple(said), closed=True))
            user, said = prompt, []
        elif kind == "assistant" and user is not None:
            said.extend(_assistant_parts(message.get("content")))
    if user is not None:
        exchanges.append(Exchange(user, tuple(said), closed=False))
    return Transcript(tuple(exchanges), tuple(s for s in summaries if s.strip()))


def _record(line: str) -> dict[str, object] | None:
    if not line.strip():
        return None
    try:
        loaded: object = json.loads(line)
    except (ValueError, RecursionError):
        return None  # a damaged line costs that line only
    return _dict(loaded)


def _dict(value: object) -> dict[str, object] | None:
    return cast(dict[str, object], value) if isinstance(value, dict) else None


def _blocks(content: object) -> list[dict[str, object]]:
    if not isinstance(content, list):
        return []
    return [b for b in (_dict(item) for item in cast(list[object], content)) if b is not None]


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
