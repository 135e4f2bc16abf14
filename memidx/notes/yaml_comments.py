"""Front-matter values that YAML cuts at a comment (pure: a block PyYAML has read in, the
cuts out).

YAML starts a comment at a `#` after a space, so `title: Fix #123 in the parser` is the title
"Fix" and `lang: #en` is no value at all: valid YAML, read without an error, and not what
the author wrote. A cut is reported when the comment starts like text (`#` then a character
that is not a space: `#123`, `#tag`); `title: Notes  # draft` is a comment written as YAML
writes them and passes in silence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memidx.frozen import Value
from memidx.notes.yaml_loader import yaml_and_loader

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~2 ms
if TYPE_CHECKING:
    from typing import Any

_TEXT_COMMENT = re.compile(r"[ \t]+#[^ \t]")
_ITEM_BEFORE = frozenset({"BlockEntryToken", "FlowEntryToken", "FlowSequenceStartToken"})
_NO_VALUE_AFTER = frozenset({"KeyToken", "BlockEndToken", "StreamEndToken"})


class Cut(Value):
    """A value YAML ended at a comment: its key, the file's line, whether it is a list item."""

    key: str
    line: int
    item: bool = False


def cut_values(block: str) -> tuple[Cut, ...]:
    """The values of a front-matter block (the file's lines from 2 on) that end where a
    comment that reads like text starts. Call it for a block PyYAML has read: its tokens
    are then sure to scan."""
    yaml, loader = yaml_and_loader()
    return _cuts(block, yaml.scan(block, Loader=loader))


def _cuts(block: str, tokens: Iterable[Any]) -> tuple[Cut, ...]:
    lines = block.split("\n")
    cuts: list[Cut] = []
    key: str | None = None
    before: Any = None
    for token in tokens:
        kind, previous = type(token).__name__, type(before).__name__
        if kind == "ScalarToken" and previous == "KeyToken":
            key = str(token.value)
        elif key is not None and kind == "ScalarToken" and token.plain:
            if previous == "ValueToken" or previous in _ITEM_BEFORE:
                cut = _cut(lines, token.end_mark, key, item=previous != "ValueToken")
                cuts += [cut] if cut else []
        elif key is not None and previous == "ValueToken" and kind in _NO_VALUE_AFTER:
            cut = _cut(lines, before.end_mark, key, item=False)  # `key: #text`: no value
            cuts += [cut] if cut else []
        before = token
    return tuple(cuts)


def _cut(lines: list[str], mark: Any, key: str, *, item: bool) -> Cut | None:
    """A cut when a comment that reads like text follows `mark` on its line."""
    index, column = int(mark.line), int(mark.column)
    rest = lines[index][column:] if index < len(lines) else ""
    return Cut(key, index + 2, item) if _TEXT_COMMENT.match(rest) else None


def cut_warning(shown_ref: str, cut: Cut) -> str:
    """The one line that says so, naming the file, the line, the key and the fix (never the
    value: it may be a secret)."""
    quoted = '- "..."' if cut.item else f'{cut.key}: "..."'
    what = f"an item of '{cut.key}'" if cut.item else f"'{cut.key}'"
    return (
        f"{shown_ref}:{cut.line}: {what} stops at ' #': YAML reads the rest of the line as a "
        f"comment (quote the value to keep it: {quoted})"
    )
