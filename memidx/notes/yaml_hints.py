"""What to do about a YAML error in front matter, for the slips editors make (pure): the words
PyYAML gives ("mapping values are not allowed in this context") do not say what to change."""

from __future__ import annotations

import re

_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: (.*))?")  # `key: value`, at the margin


def yaml_hint(block: str, index: int, exc: Exception) -> str:
    """What to do about a YAML error on the block's line `index`, for the slips editors make:
    a tab in the indentation, and a plain value that YAML reads as syntax (`title: Fix: the
    build`, `[WIP] ...`, `@user ...`, `*bold* ...`). Names the key, never the value (it may
    be a secret)."""
    lines = block.split("\n")
    comment = _COMMENT_HINT if any(_COMMENT.search(line) for line in lines[: index + 1]) else ""
    context = getattr(exc, "context_mark", None)
    spans_lines = context is not None and context.line != index
    if spans_lines and getattr(exc, "context", None) != "while parsing a block mapping":
        return comment  # an unclosed list or quote on an earlier line: no one fix to name
    text = lines[index] if 0 <= index < len(lines) else ""
    if text.lstrip(" ").startswith("\t"):
        return " (YAML indents with spaces, not tabs)"
    found = _KEY_LINE.fullmatch(text)
    value = found.group(2) if found else None
    if found and value and value[0] not in "\"'":
        return f' (put the value in double quotes: {found.group(1)}: "...")'
    return comment


# `tags: [ci, #build]`: YAML reads `#` after a space, `[` or `,` as a comment's start, so the
# list never closes and the error points past it.
_COMMENT = re.compile(r"[\s\[,]#")
_COMMENT_HINT = ' (YAML reads " #" as a comment: quote a value that holds #, e.g. "#tag")'
