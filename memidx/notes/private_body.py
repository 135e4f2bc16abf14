"""A note's body as the index holds it (pure): each `<private>` span hidden, the body's block
structure kept as the file has it.

A span is PRIVATE_STAND_IN (a symbol no search reads as a word; output shows it as
`[REDACTED:private]`) and the line breaks it held, so every line keeps its number. Hidden, a
span's lines no longer read as they do in the file: a fence line inside one (a code block
opened or closed there) is gone, and every heading after it read as code, or code as headings;
text after a span's close (`</private># Setup`) starts a line of its own, a heading or a fence
the file does not have. So each line a span touches is read as the file reads it
(memidx.notes.markdown.step), and where its hidden text reads otherwise it is made to read
the same: a fence the file opens or closes there is its bare fence run (the text after the
span kept, an opener's info string), and any other line is indented 4 spaces, which is
neither a fence nor a heading. A heading inside a span is private text: never a heading.
"""

from __future__ import annotations

from memidx.notes.markdown import step
from memidx.private import PRIVATE_STAND_IN, without_private

NEITHER = "    "  # indented code to CommonMark: neither a fence nor a heading


def indexed_body(body: str, spans: list[tuple[int, int]]) -> str:
    """`body` with each private span (offsets in `body`) hidden and the Markdown structure of
    each line kept as `body` reads (see the module)."""
    hidden = without_private(body, spans, PRIVATE_STAND_IN)
    if hidden == body:
        return body
    lines = hidden.split("\n")
    opening: str | None = None  # the fence run open in the file before the line
    for number, (real, line) in enumerate(zip(body.split("\n"), lines, strict=True)):
        after, code, heading = step(opening, real)
        if line != real:
            read_after, read_code, read_heading = step(opening, line)
            if (read_after, read_code) != (after, code) or (read_heading and not heading):
                lines[number] = _as_file(opening, after, line)
        opening = after
    return "\n".join(lines)


def _as_file(opening: str | None, after: str | None, line: str) -> str:
    """A hidden line made to read as the file's line does: it opens the code block `after`,
    closes `opening`, or does neither."""
    if after == opening:
        return NEITHER + line
    if after is not None:  # an opener: the fence, then what the line shows after the span
        return f"{after} {line}" if line.strip() else after
    return opening or ""  # a closer is nothing but its fence: the span held all of it
