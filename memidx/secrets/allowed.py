"""What an allow marker on a YAML key alone, or on the line that opens or closes a Python
string in tripled quotes, leaves alone (pure): the value below the key (its block, its next
line, the items of its list) or the whole string, as a marker on a key's line allows the value
on that line. memidx.secrets.blocks finds those values; this reads only how far they reach."""

from __future__ import annotations

import re

from memidx.secrets.blocks import (
    BLOCK_LINES,
    ITEM,
    KEY_ALONE,
    TRIPLE_OPEN,
    item_lines,
    lines_below,
)
from memidx.secrets.lazy_pattern import lazy
from memidx.secrets.quotes import plain_quotes

# a line below a key alone that is a key itself, or a list item's (`- api_key: ...`), quoted
# or plain (spaces too: `api key:`): no value of the key above it, for an allow marker on that
# key's line (broader than NESTED_KEY: what it takes for a key stays checked); a flow
# collection (`{value: x}`) is a value
KEY_BELOW = lazy(r"(?:-[ \t]++)*+(?:(?:\"[^\"]*+\"|'[^']*+')[ \t]*+|[^\s#{\[][^#]*?):(?!\S)")


def value_end(text: str, start: int, end: int) -> int:
    """Where the value below the line text[start:end] ends when that line is a key alone: its
    block (`password: |`, to the first line no more indented than the key, or less indented
    than the block's first line), or its next line when more indented and no key itself
    (`password:` over the value), or the items of the list below it up to the first that is
    a key; else `end`. An allow marker on the key's line allows that value, as it allows a
    value on the key's line. Indentation is YAML's, spaces: a list item's key (`- password:
    |`) stands after its dash, where a sibling key (`  api_key:`) stands, no line of its
    block, and where a list it holds may stand."""
    key = KEY_ALONE.fullmatch(plain_quotes(text[start:end]))
    if key is None:
        return _tripled_end(text, start, end)
    column = len(key.group(1)) + (2 if key.group().startswith("- ", key.end(1)) else 0)
    block, digit = key.group(3) is not None, re.search(r"[1-9]", key.group(3) or "")
    # the block's indentation: its indicator's (`|2`: the key's column and 2), or its first line's
    inner = column + int(digit.group()) if digit else None
    at, last = end + 1, end
    while at < len(text):
        stop = text.find("\n", at)
        stop = len(text) if stop == -1 else stop
        line = plain_quotes(text[at:stop])
        if value := line.strip():  # a blank line is part of a block
            indent = len(line) - len(line.lstrip(" "))
            if not block and value.startswith("#"):
                at = stop + 1
                continue  # a comment above the value (blocks.values_below)
            if not block and ITEM.match(value) and indent >= column:
                return _items_end(text, at, indent, last)  # a list: its items
            inner = indent if inner is None else inner
            if indent <= column or indent < inner or (not block and KEY_BELOW.match(value)):
                return last  # the block ended, or the key holds a mapping
            last = stop
            if not block:
                return last  # a plain value: its first line
        at = stop + 1
    return last


def _tripled_end(text: str, start: int, end: int) -> int:
    """Where the string in tripled quotes the line text[start:end] opens (TRIPLE_OPEN, any
    name) ends: its closing quotes' line, within BLOCK_LINES lines; else `end`. An allow
    marker on its opening line allows all of it, as on a YAML key over its block."""
    if text.find('"""', start, end) == -1 and text.find("'''", start, end) == -1:
        return end  # a literal find first, as in blocks._tripled_below
    opened = TRIPLE_OPEN.search(text, start, end)
    if opened is None:
        return end
    for _, _, stop, line in lines_below(text, end + 1):
        if opened.group(2) in line:
            return stop
    return end


# a line that closes a string in tripled quotes, a comment or code after them
TRIPLE_CLOSE = lazy(r"[ \t]*+(\"\"\"|''')")


def _tripled_start(text: str, start: int, end: int) -> int:
    """Where the string in tripled quotes that the line text[start:end] closes begins: its
    opening quotes (an allow marker after the closing quotes allows the string, as
    one after the opening quotes does; it allowed only the closing line), else `start`."""
    closing = TRIPLE_CLOSE.match(text, start, end)
    if closing is None or start == 0:
        return start
    at = start
    for _ in range(BLOCK_LINES + 1):
        stop, at = at - 1, text.rfind("\n", 0, at - 1) + 1  # the line above
        opened = TRIPLE_OPEN.search(text, at, stop)
        if opened and opened.group(2) == closing.group(1):
            # from its opening quotes: a secret before them on their line is no part of it
            return opened.start(2) if _tripled_end(text, at, stop) == end else start
        if closing.group(1) in text[at:stop] or at == 0:
            break  # another string's quotes, or the text's start: no string opened above
    return start


def _items_end(text: str, at: int, column: int, last: int) -> int:
    """Where the list whose first item's line begins at `at`, its dashes at `column`, ends
    for an allow marker on its key: at its end, or before its first line that is a key (an
    item that is a mapping, `- name: x`, and its lines): those are no value, and stay checked."""
    for begin, stop in item_lines(text, at, column):
        if KEY_BELOW.match(plain_quotes(text[begin:stop])):
            return last
        last = stop
    return last


def allowed_values(text: str, lines: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The allow-marked `lines` of `text`, a key alone's stretched over the value below it.
    A line within a value already stretched over stays a line: its own value lies within
    (more indented, it ends no later), and reading it again made nested keys quadratic."""
    spans: list[tuple[int, int]] = []
    covered = -1
    for start, end in sorted(lines):
        stretched = end if start < covered else value_end(text, start, end)
        spans.append((_tripled_start(text, start, end) if stretched == end else start, stretched))
        covered = max(covered, stretched)
    return spans
