"""Front matter in the shape memidx and most editors write it, read without PyYAML (pure).

Importing PyYAML costs ~19 ms, paid by every hook that indexes a note with front matter. The
notes `memidx remember` writes use a small part of YAML: `key: value` lines whose values are
plain words, quoted strings or lists of them. `read_simple` reads exactly that part and gives
what PyYAML gives for it (with memidx.notes.note's loader: YAML 1.2's booleans); for anything else
(comments, numbers, dates, booleans, nesting, escapes, duplicate keys) it returns None and the
caller uses PyYAML.
"""

from __future__ import annotations

import re

_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: (.*))?")
_ITEM = re.compile(r"( *)- (.*)")
_MAX_KEY = 1024  # YAML's limit for a simple key
_PLAIN_EXTRA = frozenset(" _.,'()/+-")
# Plain words that are no text: booleans (YAML 1.2's, as memidx.notes.note reads them) and null.
_SPECIAL = frozenset({"true", "false", "null", "~"})


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
