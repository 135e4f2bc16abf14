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
MAX_NUMBER_DIGITS = 100  # no field is a number; a longer one is an attack on int()


def parse_turn_json(text: str) -> object:
    """The JSON `file-turn` reads: duplicate keys, numbers of absurd length, nesting too deep
    for the parser and lone surrogates (`"\\ud800"`) are usage errors, not tracebacks (a
    secret in a field's name masked, as turn_record masks its errors)."""
    try:
        return _parsed(text)
    except UsageError as exc:
        raise _masked(exc) from None


def _parsed(text: str) -> object:
    import json

    text = text.removeprefix("\ufeff")  # Windows' UTF-8 BOM (`type turn.json`): not JSON's
    if not text.strip():  # a pipe that wrote nothing: not "Expecting value at line 1"
        raise UsageError("stdin is empty", 'give one turn as {"user": "...", "assistant": "..."}')
    try:
        payload: object = json.loads(text, object_pairs_hook=_unique, parse_int=_bounded_int)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"stdin is not JSON: {exc.msg} at line {exc.lineno}",
            'give one turn as {"user": "...", "assistant": "..."}',
        ) from exc
    except RecursionError as exc:
        raise UsageError("the JSON on stdin is nested too deeply", TURN_SHAPE) from exc
    _refuse_surrogates(payload, "the turn")
    return payload


def _unique(pairs: list[tuple[str, object]]) -> dict[str, object]:
    found: dict[str, object] = {}
    for key, value in pairs:
        if key in found:
            raise UsageError(f"the field {key!r} appears twice in the turn", "give each field once")
        found[key] = value
    return found


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise UsageError(f"a number of {len(digits)} digits in the turn", TURN_SHAPE)
    return int(digits)


def _refuse_surrogates(value: object, where: str) -> None:
    """Lone surrogates cannot be stored as UTF-8: name the field that holds one."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise UsageError(
                f"{where} holds a lone surrogate (\\u{ord(value[exc.start]):04x}), not text",
                "send UTF-8 text",
            ) from exc
    elif isinstance(value, dict):
        for key, item in cast(dict[str, object], value).items():
            _refuse_surrogates(key, f"a field name of {where}")
            _refuse_surrogates(item, f"the field {key.encode('utf-8', 'replace').decode()!r}")
    elif isinstance(value, list):
        for item in cast(list[object], value):
            _refuse_surrogates(item, where)


def turn_record(payload: object) -> Record:
    """The record of one turn given as JSON: `user` and `assistant` texts (or `text`), and
    optionally `agent`, `session`, `tags`, `drawer`, `summary_of`, `ts`, `kind`. A usage
    error names what is wrong with a secret in it masked: `not 'xoxb-...'` (a token pasted as
    `kind` or `ts`, or as a field's name) went to stderr, or to the agent through MCP."""
    try:
        return _turn_record(payload)
    except UsageError as exc:
        raise _masked(exc) from None


def _masked(exc: UsageError) -> UsageError:
    from memidx.secrets.detect import mask

    return UsageError(mask(exc.message), exc.hint)


def _turn_record(payload: object) -> Record:
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
    # as typed: redaction reads them so, then puts them in lower case (redaction.stored_tags)
    clean_tags = clean_words(cast(Sequence[str], raw), lower=False)

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
