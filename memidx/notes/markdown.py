"""The one reading of a note's Markdown block structure (pure): front matter, fenced code and
ATX headings. Titles, chunks and the English check all read a note through this module, so a
line is a heading, or code, for all three or for none.

The rules are CommonMark 0.31's, for the blocks memidx needs (https://spec.commonmark.org/):

- Front matter (Jekyll's convention, not CommonMark): the first line is `---`, and the block
  ends at the next `---` or `...` line; trailing whitespace is allowed on both. That first
  `---` is a horizontal rule instead (a thematic break) when a blank line follows it and no
  `key:` line stands before the next `---` (pandoc's rule: its metadata block never opens
  with a blank line), or when no `---` or `...` closes it and its first line with text is no
  `key:` line. A block with a `key:` line that never closes is front matter that lost its
  end (the note reader refuses such a note).
- A fenced code block opens with a run of 3 or more backticks or tildes indented 0-3 spaces;
  after a backtick run the rest of the line may not hold a backtick (`` ```x``` `` is inline
  code in a paragraph). It closes at a run of the same character, at least as long, indented
  0-3 spaces and followed by nothing but spaces or tabs; unclosed, it runs to the end. Both
  fence lines count as code.
- An ATX heading is 1-6 `#` indented 0-3 spaces, then a space, a tab or the end of the line.
  Its text is the rest, stripped of spaces and tabs and of a closing run of `#` that stands
  after a space or a tab (`# C#` is "C#"; `# Title ##` is "Title"). The text may be empty.
- Indentation counts spaces: a tab before a fence or a `#` makes it indented code (a tab
  reaches column 4), which is neither a fence nor a heading.

- Git's conflict markers (not Markdown): a line starting `<<<<<<<`, later `=======`, later
  `>>>>>>>`, each followed by nothing or a space and a label, all three outside fenced code
  (front matter included): a note about git shows them in code, and `=======` alone under a
  line of text is a setext heading's underline.

Not read, so never a fence or a heading here: containers (a fence or heading inside a block
quote or indented 4+ spaces inside a list item), indented code blocks, setext headings
(`Title` over `===`), HTML blocks. The English check strips block-quote markers itself before
it asks for a heading.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from memidx.frozen import Value


class Heading(Value):
    """An ATX heading: its level (1-6) and its text (possibly empty)."""

    level: int
    text: str


_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]|$)")
_MARKS = frozenset(" `~#")  # the first character of every line that can be a fence or heading
_CONFLICT_FIRST = frozenset("<=>")
_CONFLICT = re.compile(r"(?:<{7}|>{7})(?:[ \t].*)?|={7}[ \t]*")
# `key:` at the margin, the key a word or quoted: a line of YAML front matter, not of prose
_KEY_LINE = re.compile(r"""(?:[A-Za-z_][A-Za-z0-9_-]*|"[^"\n]*"|'[^'\n]*')[ \t]*:(?:\s|$)""")


def front_matter_end(lines: Sequence[str]) -> int | None:
    """How many lines the front matter takes, its `---` lines included: 0 when the text has
    none (a first `---` that is a horizontal rule), None when it is never closed."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if close is None:  # front matter that lost its end, or a rule over the body
        first = next((line for line in lines[1:] if line.strip()), "")
        return None if _KEY_LINE.match(first) else 0
    if lines[1].strip() or any(_KEY_LINE.match(line) for line in lines[1:close]):
        return close + 1
    return 0  # a blank line after the rule and no `key:` line up to the next rule


def heading_of(line: str) -> Heading | None:
    """The ATX heading a line is, if it is one (whether it stands in code is scan's business)."""
    found = _ATX.match(line)
    if found is None:
        return None
    text = line[found.end() :].strip(" \t")
    unclosed = text.rstrip("#")
    if not unclosed or unclosed[-1] in " \t":  # a closing run, or a text of `#` only
        text = unclosed.rstrip(" \t")
    return Heading(len(found.group(1)), text)


def scan(lines: Iterable[str]) -> Iterator[tuple[str, bool, Heading | None]]:
    """Each line with whether it is fenced code (fence lines included) and, outside code, the
    heading it is."""
    opening: str | None = None  # the fence run of the open code block
    for line in lines:
        if not line or line[0] not in _MARKS:  # most lines: no call
            yield line, opening is not None, None
            continue
        opening, code, heading = step(opening, line)
        yield line, code, heading


def step(opening: str | None, line: str) -> tuple[str | None, bool, Heading | None]:
    """What scan reads in one line after a code block fenced by `opening` (None: none open):
    the fence run open after it, whether it is code, and outside code the heading it is."""
    if not line or line[0] not in _MARKS:
        return opening, opening is not None, None
    found = _FENCE.match(line)
    if opening is not None:
        if found and found.group(1).startswith(opening) and not line[found.end() :].strip(" \t"):
            return None, True, None  # the same character, at least as many, nothing after
        return opening, True, None
    if found and not (found.group(1)[0] == "`" and "`" in line[found.end() :]):
        return found.group(1), True, None
    return None, False, heading_of(line)


def conflict_start(lines: Sequence[str]) -> int | None:
    """The index of the `<<<<<<<` line of the first unresolved git conflict (its `=======` and
    `>>>>>>>` follow, outside fenced code), or None."""
    if not any(line.startswith("<<<<<<<") for line in lines):
        return None  # nearly every note: no second scan
    end = front_matter_end(lines) or 0
    marks = [(i, line[0]) for i, line in enumerate(lines[:end]) if _is_conflict_mark(line)]
    for i, (line, code, _) in enumerate(scan(lines[end:]), start=end):
        if not code and _is_conflict_mark(line):
            marks.append((i, line[0]))
    opening = None  # the `<<<<<<<` line of the conflict being read, then its `=======`
    seen_middle = False
    for i, mark in marks:
        if mark == "<":
            opening, seen_middle = i, False
        elif mark == "=" and opening is not None:
            seen_middle = True
        elif mark == ">" and seen_middle:
            return opening
    return None


def _is_conflict_mark(line: str) -> bool:
    return line[:1] in _CONFLICT_FIRST and _CONFLICT.fullmatch(line) is not None
