"""`<private>…</private>` spans (pure): where they stand in a text, and the text as memidx may
index it. Shared by the secret detectors (records never store a span, output masks one) and by
the note reader (a note's spans are never indexed), so both read the same spans."""

from __future__ import annotations

import re

PRIVATE_TAG = re.compile(r"(?i)<(/?)private\s*>")  # `<private>`, `</private >`, any case
PRIVATE_KIND = "private"
PRIVATE_MARK = f"[REDACTED:{PRIVATE_KIND}]"
# What a note's span is indexed as: U+2421 SYMBOL FOR DELETE, which the index's tokenizer, a
# query and the chunker all read as no word (the marker's words found every note with a span by
# "private" or "redacted"); output shows it as the marker (shown_private)
PRIVATE_STAND_IN = "\u2421"
# A `␡` a note holds itself, as the index holds it: U+FE0E (VARIATION SELECTOR-15, invisible,
# no word either) after it, so output tells it from a span (own_stand_ins, shown_private)
OWN_STAND_IN = PRIVATE_STAND_IN + "\ufe0e"
_SPAN_STAND_IN = re.compile(f"{PRIVATE_STAND_IN}(?!\ufe0e)")


def private_ranges(text: str) -> list[tuple[int, int]]:
    """(start, end) of each `<private>…</private>` span, tags included, each to the close that
    matches its open (a private span inside one ends neither); an unclosed one runs to the end."""
    if "<" not in text:  # most texts: no tag to look for
        return []
    spans: list[tuple[int, int]] = []
    depth = start = 0
    for tag in PRIVATE_TAG.finditer(text):
        if not tag.group(1):
            start = tag.start() if depth == 0 else start
            depth += 1
        elif depth:  # a close with nothing open is text
            depth -= 1
            if depth == 0:
                spans.append((start, tag.end()))
    if depth:
        spans.append((start, len(text)))
    return spans


def without_private(
    text: str, spans: list[tuple[int, int]] | None = None, mark: str = PRIVATE_MARK
) -> str:
    """`text` with each private span (`spans`, else its own) replaced by `mark` and the line
    breaks the span held, so every line after it keeps its number. A U+FE0E right after a
    span is dropped when the mark is PRIVATE_STAND_IN: the stand-in then U+FE0E is a note's own
    `␡` (OWN_STAND_IN), and the span was shown as `␡`, not as `[REDACTED:private]`."""
    spans = private_ranges(text) if spans is None else spans
    if not spans:
        return text
    pieces: list[str] = []
    cursor = 0
    for start, end in spans:
        pieces += [text[cursor:start], mark, "\n" * text.count("\n", start, end)]
        cursor = end
        while mark == PRIVATE_STAND_IN and text.startswith("\ufe0e", cursor):
            cursor += 1  # an invisible selector of what the span hides: nothing to show
    pieces.append(text[cursor:])
    return "".join(pieces)


def own_stand_ins(text: str) -> str:
    """A note's text with each `␡` it holds itself marked as its own (OWN_STAND_IN), before its
    spans become PRIVATE_STAND_IN: one is never shown as `[REDACTED:private]`."""
    return text.replace(PRIVATE_STAND_IN, OWN_STAND_IN) if PRIVATE_STAND_IN in text else text


def shown_private(text: str) -> str:
    """`text` as output shows it: each span a note's row holds (PRIVATE_STAND_IN) shown as
    `[REDACTED:private]`, each `␡` the note holds itself (OWN_STAND_IN) as `␡`."""
    if PRIVATE_STAND_IN not in text:
        return text
    return _SPAN_STAND_IN.sub(PRIVATE_MARK, text).replace(OWN_STAND_IN, PRIVATE_STAND_IN)


def indexed_record_text(text: str) -> str:
    """A record's text or tag as the index holds it, as a note's: each span filing replaced
    (`[REDACTED:private]`, or a `<private>` span an older memidx filed) as PRIVATE_STAND_IN,
    each `␡` of its own as OWN_STAND_IN. Indexed as the marker, its words listed exactly the
    turns that held private text (`memidx search redacted`, or `private`)."""
    if "<" not in text and "[" not in text and PRIVATE_STAND_IN not in text:
        return text
    hidden = without_private(own_stand_ins(text), mark=PRIVATE_STAND_IN)
    return _FILED_MARK.sub(PRIVATE_STAND_IN, hidden)


# a tag's in lower case; a U+FE0E after it is dropped, as after a span (without_private):
# the stand-in then U+FE0E is a record's own `␡`, and the span was shown as `␡`
_FILED_MARK = re.compile(re.escape(PRIVATE_MARK) + "\ufe0e*", re.IGNORECASE)
