"""Records from loosely typed input: the JSON object `file-turn` reads, and the keyword fields
of `Haystack.file`; anything that is not a record's field or type is a usage error."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import cast

from memidx.errors import MemidxError, UsageError
from memidx.haystack.frames import Record, iso_utc, new_record
from memidx.notes.note import clean_words

TURN_SHAPE = 'e.g. {"user": "...", "assistant": "..."} or {"text": "..."}'


def turn_record(payload: object) -> Record:
    """The record of one turn given as JSON: `user` and `assistant` texts (or `text`), and
    optionally `agent`, `session`, `tags`, `drawer`, `summary_of`, `ts`, `kind`."""
    if not isinstance(payload, dict):
        raise UsageError("the turn must be a JSON object", TURN_SHAPE)
    fields: dict[str, object] = {str(k): v for k, v in cast(dict[object, object], payload).items()}
    kind = fields.pop("kind", None) or "turn"
    if not isinstance(kind, str):
        raise UsageError(f"kind must be a string, not {type(kind).__name__}", TURN_SHAPE)
    if kind not in ("turn", "fact"):
        raise UsageError(f"file-turn files turns and facts, not {kind!r}", "use archive-transcript")
    text = fields.pop("text", None)
    user, assistant = fields.pop("user", None), fields.pop("assistant", None)
    for name, value in (("text", text), ("user", user), ("assistant", assistant)):
        if value is not None and not isinstance(value, str):
            raise UsageError(f"{name} must be a string, not {type(value).__name__}", TURN_SHAPE)
    if text is not None and (user is not None or assistant is not None):
        raise UsageError("the turn has both text and user/assistant: one would be lost", TURN_SHAPE)
    if text is None:
        parts = [f"User: {user}" if user else "", f"Assistant: {assistant}" if assistant else ""]
        text = "\n\n".join(p for p in parts if p)
    unknown = sorted(set(fields) - {"agent", "session", "tags", "drawer", "summary_of", "ts"})
    if unknown:
        raise UsageError(
            f"unknown field {unknown[0]!r} in the turn", "see `memidx file-turn --help`"
        )
    try:
        return make_record(kind, str(text), **fields)
    except ValueError as exc:
        raise UsageError(f"invalid turn: {exc}", "`ts` is ISO 8601, `tags` a list") from exc
    except MemidxError as exc:
        raise UsageError(exc.message, exc.hint) from exc


def make_record(kind: str, text: str, **fields: object) -> Record:
    """new_record with loosely typed keyword fields from JSON input, validated."""
    raw: object = fields.get("tags")
    raw = () if raw is None else raw
    if isinstance(raw, str):
        raw = raw.split(",")
    if not isinstance(raw, list | tuple) or not all(
        isinstance(t, str) for t in cast(Sequence[object], raw)
    ):
        raise ValueError("tags must be a list of words or a comma string")
    clean_tags = clean_words(cast(Sequence[str], raw))

    def text_field(name: str) -> str | None:
        value = fields.get(name)
        if name == "ts" and isinstance(value, datetime):  # from Python: a moment, as is
            value = value.isoformat()
        if value is not None and not isinstance(value, str):  # never str() of a list or number
            raise ValueError(f"{name} must be a string, not {type(value).__name__}")
        return value or None

    return new_record(
        kind,
        text,
        drawer=text_field("drawer") or "general",
        tags=clean_tags,
        agent=text_field("agent"),
        session=text_field("session"),
        summary_of=text_field("summary_of"),
        ts=None if text_field("ts") is None else iso_utc(str(text_field("ts"))),
    )
