"""Whether Gemini CLI compresses its chat at a PreCompress event. Gemini CLI 0.61.0 fires
PreCompress before every request to the model once the chat has a history, and decides only
after the hook whether to compress (when the prompt's size reaches `model.compressionThreshold`,
default 0.5, of the model's token limit). memidx archives the session only when that test
passes, as Gemini makes it: the prompt size is the `tokens.input` of the last reply recorded
since the CLI last set the chat's whole history (a `$set` of `messages`: at a start, a resume
and after a compression; a resume writes its own header line into the resumed file only when
it starts in the minute the file is named after), or, before any, Gemini's estimate of the
history it set then (about 4 characters a token); and there must be
something to compress (Gemini keeps the history from the last prompt on: a prompt after a
reply, or a history that ends with a reply that calls no tool).

The session file (`~/.gemini/tmp/<project>/chats/session-*.jsonl` in 0.61.0): a header line
(`sessionId`, `startTime`, `kind`), `{"$set": {...}}` lines (`messages` sets the whole list),
and one line per message (`id`, `type` user | gemini | ..., `content`, and for replies `tokens`
and `model`). Older versions wrote one JSON document with `messages`; both are read."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import cast

from memidx.frozen import Value

DEFAULT_THRESHOLD = 0.5
TOKEN_LIMIT = 1_048_576
SMALL_MODELS = {"gemma-4-31b-it": 256_000, "gemma-4-26b-a4b-it": 256_000}
CHARS_PER_TOKEN = 4
NON_ASCII_TOKENS = 1.3  # Gemini's estimate for a character outside ASCII


class Session(Value):
    """What decides a compression: the chat's size in tokens and the model."""

    prompt_tokens: int
    model: str
    compressible: bool  # whether Gemini finds a part of the history to summarize


def read(text: str) -> Session:
    """The prompt size Gemini compares with its threshold, from the session file's text."""
    whole = _document(text)
    records = [whole] if whole is not None else [_record(line) for line in text.splitlines()]
    messages: dict[str, dict[str, object]] = {}
    recent: int | None = None  # the size since the chat's history was last set
    for record in records:
        if record is None:
            continue
        listed = (record if whole is not None else _dict(record.get("$set")) or {}).get("messages")
        if isinstance(listed, list):
            messages = {}
            for item in cast(list[object], listed):
                _add(messages, _dict(item))
            if whole is not None:  # one document: no header tells when the CLI opened it
                recent = next((t for t in map(_input, reversed(messages.values())) if t), None)
            else:  # the CLI rebuilt its chat (a resume, a compression): it estimates anew
                recent = int(sum(_estimate(m) for m in messages.values()))
        elif "type" in record:
            _add(messages, record)
            recent = _input(record) or recent
        elif "startTime" in record:
            recent = None  # the CLI (re)opened the session: it estimates the history
    replies = [m for m in messages.values() if m.get("type") == "gemini" and m.get("model")]
    model = str(replies[-1]["model"]) if replies else ""
    size = recent if recent is not None else int(sum(_estimate(m) for m in messages.values()))
    return Session(prompt_tokens=size, model=model, compressible=_compressible(messages))


def compresses(text: str, cwd: str) -> bool:
    """Whether Gemini CLI compresses the chat in `text` now (its automatic trigger)."""
    session = read(text)
    limit = SMALL_MODELS.get(session.model, TOKEN_LIMIT)
    return session.compressible and session.prompt_tokens >= threshold(cwd) * limit


def threshold(cwd: str) -> float:
    """`model.compressionThreshold` as Gemini CLI merges it: system settings over the
    workspace's over the user's; unset (or 0) means Gemini's default."""
    system = os.environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or "/etc/gemini-cli/settings.json"
    folders = (Path(cwd), *_user_home())
    for path in (Path(system), *(f / ".gemini" / "settings.json" for f in folders)):
        value = (_dict(_settings(path).get("model")) or {}).get("compressionThreshold")
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            return float(value)
    return DEFAULT_THRESHOLD


def _user_home() -> list[Path]:
    """The folder of the user's `.gemini/` as Gemini CLI finds it; none without a home."""
    from memidx.errors import ConfigError
    from memidx.locations import home_folder

    try:
        return [Path(os.environ.get("GEMINI_CLI_HOME") or home_folder())]
    except ConfigError:
        return []


def _add(messages: dict[str, dict[str, object]], message: dict[str, object] | None) -> None:
    if message is not None:
        messages[str(message.get("id") or len(messages))] = message


def _compressible(messages: dict[str, dict[str, object]]) -> bool:
    """Gemini's split point is past the start: a prompt follows a reply, or the history ends
    with a reply that calls no tool."""
    said = [m for m in messages.values() if m.get("type") in ("user", "gemini")]
    replied = False
    for message in said:
        if message.get("type") == "gemini":
            replied = True
        elif replied and _prompt(message):
            return True
    last = said[-1] if said else {}
    return last.get("type") == "gemini" and not last.get("toolCalls")


def _prompt(message: dict[str, object]) -> bool:
    """A user message with text (tool results come back as user messages too)."""
    content = message.get("content")
    if isinstance(content, str):
        return bool(content)
    parts = [_dict(p) or {} for p in cast(list[object], content or [])]
    return any(isinstance(p.get("text"), str) for p in parts)


def _input(message: dict[str, object]) -> int | None:
    """A reply's prompt size as the model reported it."""
    value = (_dict(message.get("tokens")) or {}).get("input")
    return value if message.get("type") == "gemini" and isinstance(value, int) else None


def _estimate(message: dict[str, object]) -> float:
    content = message.get("content")
    parts = cast(list[object], content) if isinstance(content, list) else [{"text": content}]
    total = 0.0
    for part in (_dict(p) or {} for p in parts):
        text = part.get("text")
        if isinstance(text, str):
            total += sum(1 / CHARS_PER_TOKEN if ord(c) <= 127 else NON_ASCII_TOKENS for c in text)
        elif part:
            total += len(json.dumps(part)) / CHARS_PER_TOKEN
    calls = message.get("toolCalls")  # the calls; their results come back as user messages
    for call in (_dict(c) or {} for c in cast(list[object], calls or [])):
        asked = {"name": call.get("name"), "args": call.get("args")}
        total += len(json.dumps({"functionCall": asked})) / CHARS_PER_TOKEN
    return total


def _settings(path: Path) -> dict[str, object]:
    try:
        return _dict(json.loads(path.read_text(encoding="utf-8"))) or {}
    except (OSError, ValueError):
        return {}


def _document(text: str) -> dict[str, object] | None:
    """The whole file as one JSON document (the format before JSONL), else None."""
    if not text.lstrip().startswith("{") or "\n{" in text.strip():
        return None
    found = _record(text)
    return found if found is not None and isinstance(found.get("messages"), list) else None


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
