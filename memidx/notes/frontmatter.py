"""Front matter: its fields as the text memidx stores (pure: text in, values out).

Importing PyYAML costs ~19 ms, paid by every hook that indexes a note with front matter. The
notes `memidx remember` writes use a small part of YAML: `key: value` lines whose values are
plain words, quoted strings or lists of them. `read_simple` reads exactly that part and gives
what PyYAML gives for it (with this module's loader: YAML 1.2's booleans); for anything else
(comments, numbers, dates, booleans, nesting, escapes, duplicate keys) it returns None and
PyYAML reads the block.

Whatever YAML holds, the fields memidx reads (title, tags, aliases, created, lang) become text
or a FrontMatterError: a value no text stands for (a number out of range, NaN, binary data, a
set, a timestamp outside years 1-9999 in UTC, a nested list) is refused, never passed on.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import UTC, date, datetime

from memidx.frozen import Value
from memidx.notes.yaml_comments import Cut, cut_values
from memidx.notes.yaml_hints import yaml_hint
from memidx.notes.yaml_loader import yaml_and_loader
from memidx.private import PRIVATE_STAND_IN, without_private

_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: (.*))?")
_ITEM = re.compile(r"( *)- (.*)")
_MAX_KEY = 1024  # YAML's limit for a simple key
_PLAIN_EXTRA = frozenset(" _.,'()/+-")
# Plain words that are no text: booleans (YAML 1.2's, as this module's loader reads them), null.
_SPECIAL = frozenset({"true", "false", "null", "~"})


# For a note whose first `---` is taken for front matter but was meant as a horizontal rule.
RULE_HINT = "a horizontal rule that opens a note can be written '***'"


class FrontMatterError(ValueError):
    """Front matter memidx cannot read; the message says why, `line` where in the file."""

    def __init__(self, message: str, line: int = 1) -> None:
        super().__init__(f"malformed front matter: {message}")
        self.line = line


class Fields(Value):
    """The fields memidx reads, as text (tags and aliases before cleaning)."""

    title: str | None = None
    tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    created: str | None = None
    lang: str | None = None
    cut: tuple[Cut, ...] = ()  # values YAML ended at a `#` that reads like text (a warning)


def read_fields(block: str, private: Sequence[tuple[int, int]] = ()) -> Fields:
    """The fields of a front-matter block (the lines between its `---` lines, the first of
    them the file's line 2); FrontMatterError when it cannot be read. A value YAML reads out
    of a `private` span (offsets in `block`) is PRIVATE_STAND_IN (notes.private_yaml)."""
    fields = None if private else read_simple(block)  # never a `#` outside quotes: no cut
    cut: tuple[Cut, ...] = ()
    if fields is None:
        fields = _read_yaml(block, private)
        cut = cut_values(block) if "#" in block else ()
    return Fields(
        title=_one(fields, "title"),
        tags=_words(fields, "tags"),
        aliases=_words(fields, "aliases"),
        created=_created(fields),
        lang=_one(fields, "lang"),
        cut=cut,
    )


def read_simple(text: str) -> dict[str, object] | None:
    """The fields of front matter written in the simple shape, or None for anything else."""
    fields: dict[str, object] = {}
    list_key: str | None = None  # after a `key:` line with no value: its list items follow
    indent: str | None = None  # the items' indentation: "" or two spaces, the same for all
    items: list[str] | None = None
    for line in text.split("\n"):
        item = _ITEM.fullmatch(line)
        if item is not None:
            value = _scalar(item.group(2))
            if value is None or list_key is None or item.group(1) not in ("", "  "):
                return None
            if indent is not None and item.group(1) != indent:
                return None
            indent = item.group(1)
            if items is None:
                items = fields[list_key] = []
            items.append(value)
            continue
        match = _KEY.fullmatch(line)
        if match is None:
            return None
        key, raw = match.group(1), match.group(2)
        if key in fields or key.lower() in _SPECIAL or len(key) > _MAX_KEY:
            return None
        list_key, indent, items = None, None, None
        if not raw:
            list_key = key
            fields[key] = None  # null, unless list items follow
            continue
        value = _flow_list(raw) if raw.startswith("[") else _scalar(raw)
        if value is None:
            return None
        fields[key] = value
    return fields


def _scalar(raw: str) -> str | None:
    """A quoted string on one line or a plain word that YAML reads as text; None otherwise."""
    if not raw:
        return None
    if len(raw) >= 2 and raw[0] == raw[-1] == "'":
        inner = raw[1:-1]
        if not inner.replace("''", "").count("'") and inner.isprintable():
            return inner.replace("''", "'")
        return None
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        inner = raw[1:-1]
        if '"' not in inner and "\\" not in inner and inner.isprintable():
            return inner
        return None
    # A leading digit is text only with a space in it (numbers and dates have none, and a
    # timestamp with a space has a colon, which plain words here never have).
    if (
        (raw[0].isalpha() or (raw[0].isdigit() and " " in raw))
        and raw == raw.rstrip()
        and raw.lower() not in _SPECIAL
        and all(c.isalnum() or c in _PLAIN_EXTRA for c in raw)
    ):
        return raw
    return None


def _flow_list(raw: str) -> list[str] | None:
    """`[a, b, c]` of plain words."""
    if not raw.endswith("]"):
        return None
    inner = raw[1:-1].strip(" ")  # YAML's spaces only: str.strip() would eat U+3000 and more
    if not inner:
        return []
    words: list[str] = []
    for part in inner.split(","):
        item = part.strip(" ")
        word = _scalar(item) if item and "'" not in item else None
        if word is None:
            return None
        words.append(word)
    return words


def _read_yaml(block: str, private: Sequence[tuple[int, int]]) -> dict[str, object]:
    """Front matter beyond the simple shape, or with `private` spans, read by PyYAML (imported
    here: ~19 ms)."""
    from memidx.notes.private_yaml import load_hiding  # with PyYAML: never on the simple path

    yaml, loader = yaml_and_loader()
    try:
        loaded: object = load_hiding(loader(block), private)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        where = f" at line {line}{yaml_hint(block, mark.line, exc)}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise FrontMatterError(f"{problem}{where}", line=line) from exc
    except Exception as exc:
        # PyYAML's constructors let out whatever a hostile value makes them raise: ValueError
        # (`2026-13-45`, a 5,000-digit number), KeyError (`!!bool x`), AttributeError
        # (`!!timestamp x`), RecursionError (deep nesting without libyaml), MemoryError.
        raise FrontMatterError(_why(exc)) from exc
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise FrontMatterError(f"expected 'key: value' lines ({RULE_HINT})")
    from typing import cast

    fields = cast(dict[object, object], loaded)
    for key in fields:
        if not isinstance(key, str):  # `1: x`, `true: x`, `2026-01-01: x`, `? [a]`
            raise FrontMatterError(f"a key is {_kind(key)}, not text (quote it)")
    return cast(dict[str, object], fields)


def _why(exc: Exception) -> str:
    """What went wrong in a PyYAML constructor, in words."""
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    if isinstance(exc, ValueError) and str(exc):  # the value's own reason: "month must be..."
        return str(exc)
    return f"a value PyYAML cannot build ({type(exc).__name__}: {exc})"


def _one(fields: dict[str, object], key: str) -> str | None:
    """A field that holds one value, as text."""
    value = fields.get(key)
    if value is None:
        return None
    if isinstance(value, dict | list):
        found = "a list" if isinstance(value, list) else "a mapping"
        raise FrontMatterError(f"'{key}' must be text, found {found}")
    return _text(value, key).strip() or None


def _created(fields: dict[str, object]) -> str | None:
    """`created` as text; a time YAML leaves as text (`2026-03-14 10:00`, a quoted timestamp)
    in UTC like YAML's own timestamps, so --since and --until compare it as a time."""
    text = _one(fields, "created")
    if text is None or len(text) <= len("2026-03-14"):
        return text
    try:
        return _utc(datetime.fromisoformat(text), "created")
    except ValueError:  # not a time, or none in UTC (FrontMatterError): the text it is
        return text


def _words(fields: dict[str, object], key: str) -> tuple[str, ...]:
    """A field that holds words: a list, a comma string or one value."""
    value = fields.get(key)
    if value is None:
        return ()
    if isinstance(value, dict):
        raise FrontMatterError(f"'{key}' must be text or a list")
    if isinstance(value, str):  # a span over its commas hides each word it covers, whole
        return tuple(without_private(value, mark=PRIVATE_STAND_IN).split(","))
    from typing import cast  # only here: importing typing costs every hook ~2 ms

    items = cast(list[object], value) if isinstance(value, list) else [value]
    if any(isinstance(item, dict | list) for item in items):  # an alias bomb stops here too
        raise FrontMatterError(f"'{key}' must be a list of words")
    return tuple(_text(item, key) for item in items)


def _text(value: object, key: str) -> str:
    """One YAML value as text; FrontMatterError for a value no text stands for."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:  # `"\ud800"` (PyYAML without libyaml lets it in)
            raise FrontMatterError(f"'{key}' holds a lone surrogate, not text") from exc
        return value
    if isinstance(value, bool | int):
        try:
            return str(value)
        except ValueError as exc:  # `1:2:3:...`, YAML 1.1's base 60, makes any size of int
            raise FrontMatterError(f"'{key}' is a number too long to write") from exc
    if isinstance(value, float):
        if not math.isfinite(value):
            raise FrontMatterError(
                f"'{key}' is {value}, not a finite number (quote it to keep it as text)"
            )
        return str(value)
    if isinstance(value, datetime):  # comparable with records' timestamps: UTC, "Z"
        return _utc(value, key)
    if isinstance(value, date):
        return value.isoformat()
    raise FrontMatterError(f"'{key}' must be text, found {_kind(value)}")


def _utc(moment: datetime, key: str) -> str:
    """A timestamp in UTC, as records write theirs: `2026-03-14T08:00:00Z`."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        utc = moment.astimezone(UTC)
    except OverflowError as exc:  # `9999-12-31 23:59:59 -23:00` is in year 10000 in UTC
        raise FrontMatterError(
            f"'{key}' is {moment.isoformat(' ')}, outside the years 1-9999 in UTC"
        ) from exc
    return utc.replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


_KINDS: dict[type, str] = {
    bytes: "binary data (!!binary)",
    set: "a set (!!set)",
    tuple: "a pair (!!pairs, !!omap)",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    date: "a date",
    datetime: "a timestamp",
    type(None): "null",
}


def _kind(value: object) -> str:
    """What a YAML value is, for a message (never its text: that may be huge)."""
    return _KINDS.get(type(value), f"a {type(value).__name__}")
