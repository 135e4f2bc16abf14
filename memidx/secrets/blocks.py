"""A value given on the lines below its secret-sounding key (pure): YAML's `password: |` or
`>-` (a literal or folded block), or `password:` alone with the value on the next line, more
indented, as a Kubernetes manifest or an Ansible file in a note holds one. Read one line at a
time, the key's line holds no value, so no keyword rule saw one."""

from __future__ import annotations

import re
from collections.abc import Iterator

from memidx.secrets import library
from memidx.secrets.patterns import Finding, looks_secret
from memidx.secrets.quotes import plain_quotes
from memidx.secrets.windows import secret_word

# a key alone on its line (in a list item too), in quotes or not, then a block's indicator
# (`|`, `>`, with chomping and indentation: `|-`, `>+`, `|2`) or nothing, and a comment; the
# line's \r of a file saved on Windows (CRLF) too: such a file's keys were never read
KEY_ALONE = re.compile(
    r"([ \t]*+)(?:- )?[\"']?+([\w.-]++)[\"']?+[ \t]*+:[ \t]*+([|>][+-]?[1-9]?[+-]?)?[ \t]*+(?:#.*)?"
    r"\r?"
)
BLOCK_LINES = 64  # the lines of a block read: a block of nested keys is never read twice over
# a line below a key alone that is a key itself (`valueFrom:`, `"key":`): a nested mapping
NESTED_KEY = re.compile(r"[\"']?+[\w.-]++[\"']?+[ \t]*+:(?!\S)")


def values_below(
    text: str, start: int, end: int, kind: str, judged: dict[int, bool] | None = None
) -> Iterator[Finding]:
    """The values that look secret on the lines below the line `text[start:end]`, when that
    line is a secret-sounding key alone: each line of its block, or its next line unless it is
    a key (`password:` over `  secretKeyRef:`). `judged`: whether each line, by where it
    starts, looked secret, kept across the keys of one text (nested keys read one line again
    and again, the entropy of each measured up to 64 times over)."""
    key = KEY_ALONE.fullmatch(text, start, end)
    if key is None or not secret_word(key.group(2)):
        return
    judged = {} if judged is None else judged
    entropy = library.entropy()
    indent, block = len(key.group(1)), key.group(3) is not None
    at = end + 1
    for _ in range(BLOCK_LINES):
        if at >= len(text):
            return
        stop = text.find("\n", at)
        stop = len(text) if stop == -1 else stop
        line = text[at:stop]
        value = line.strip()
        if value:  # a blank line is part of a block
            begin = at + len(line) - len(line.lstrip())
            if begin - at <= indent or (not block and NESTED_KEY.match(value)):
                return  # the block ended, or the key holds a mapping
            secret = judged.get(begin)
            if secret is None:
                secret = judged[begin] = " " not in value and looks_secret(value, entropy)
            if secret:
                yield Finding(begin, begin + len(value), kind)
            if not block:
                return  # a plain value: its first line is all this reads
        at = stop + 1


# a line below a key alone that is a key itself, or a list item's (`- api_key: ...`), quoted,
# plain (spaces too: `api key:`) or in a flow mapping (`{api_key: ...}`): no value of the key
# above it, for an allow marker on that key's line (broader than NESTED_KEY: what it takes for
# a key stays checked)
KEY_BELOW = re.compile(r"(?:-[ \t]++)*+(?:(?:\"[^\"]*+\"|'[^']*+')[ \t]*+|[^\s#][^#]*?):(?!\S)")


def value_end(text: str, start: int, end: int) -> int:
    """Where the value below the line text[start:end] ends when that line is a key alone: its
    block (`password: |`, to the first line no more indented than the key, or less indented
    than the block's first line), or its next line when more indented and no key itself
    (`password:` over the value); else `end`. An allow marker on the key's line allows that
    value, as it allows a value on the key's line. Indentation is YAML's, spaces: a list
    item's key (`- password: |`) stands after its dash, where a sibling key (`  api_key:`)
    stands, which is no line of its block."""
    key = KEY_ALONE.fullmatch(plain_quotes(text[start:end]))
    if key is None:
        return end
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
            inner = indent if inner is None else inner
            if indent <= column or indent < inner or (not block and KEY_BELOW.match(value)):
                return last  # the block ended, or the key holds a mapping
            last = stop
            if not block:
                return last  # a plain value: its first line
        at = stop + 1
    return last


def allowed_values(text: str, lines: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The allow-marked `lines` of `text`, a key alone's stretched over the value below it.
    A line within a value already stretched over stays a line: its own value lies within
    (more indented, it ends no later), and reading it again made nested keys quadratic."""
    spans: list[tuple[int, int]] = []
    covered = -1
    for start, end in sorted(lines):
        stretched = end if start < covered else value_end(text, start, end)
        spans.append((start, stretched))
        covered = max(covered, stretched)
    return spans
