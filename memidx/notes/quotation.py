# Quotation marks of every kind are the point of this module.
# ruff: noqa: RUF003
"""Words in quotation marks: someone else's (an error message, a proverb), as a block quote's
are. A note the English check refuses is read again without them, when they are the minor part
of its own prose (at most half of its letters) and the rest still holds a paragraph that votes:
the rest must then read as English on its own, with no loanword look (memidx.notes.loanwords).
So an English note quoting a German error passes, while a note mostly in quotation marks, or
a foreign one with a few words quoted, is refused as before: quoting only ever lets a note
through whose own prose is English. Pure."""

from __future__ import annotations

import re
from collections.abc import Sequence

# A single quote opens only after a non-word character and before a letter, and closes only
# where no letter or digit follows: an apostrophe inside a word (don't, l'erreur, it’s), after
# one (the users' keys) or before a digit ('90s) neither opens nor closes a quotation.
_OPENING = re.compile(r"""(?<![^\W_])['\u2018](?=[^\W\d_])|["\u201c\u201e\u00ab\u00bb\u201a]""")
_CLOSING = {  # what closes each opening mark; a line's end closes nothing
    '"': re.compile('\n|"'),  # "straight"
    "\u201c": re.compile("\n|\u201d"),  # “English”
    "\u201e": re.compile("\n|[\u201c\u201d]"),  # „German“, „Polish”
    "\u00ab": re.compile("\n|\u00bb"),  # «French»
    "\u00bb": re.compile("\n|[\u00ab\u00bb]"),  # »German«, »Swedish»
    "\u201a": re.compile("\n|[\u2018\u2019]"),  # ‚German‘
    "\u2018": re.compile("\n|\u2019(?![^\\W_])"),  # ‘English’
    "'": re.compile("\n|'(?![^\\W_])"),  # 'straight'
}
MAX_QUOTED_SHARE = 0.5  # of the prose's letter bytes: more, and the quotes are the note


def quotations(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each quotation in text, marks included, leftmost first. Linear in
    the text (a pattern would go quadratic on openings that never close): a mark left open on
    a line is not looked for again on that line."""
    spans: list[tuple[int, int]] = []
    unclosed: dict[str, int] = {}  # a mark: where the line it was left open on ends
    at = 0
    while (opening := _OPENING.search(text, at)) is not None:
        mark, at = opening[0], opening.end()
        if unclosed.get(mark, -1) >= at:
            continue
        closing = _CLOSING[mark].search(text, at)
        if closing is None or closing[0] == "\n":
            unclosed[mark] = len(text) if closing is None else closing.start()
            continue
        spans.append((opening.start(), closing.end()))
        at = closing.end()
    return spans


def unquoted(text: str) -> str:
    """`text` with each quotation, marks included, replaced by a space."""
    kept: list[str] = []
    at = 0
    for start, end in quotations(text):
        kept.append(text[at:start])
        at = end
    return " ".join([*kept, text[at:]]) if kept else text


def set_quotes_aside(units: Sequence[str]) -> list[str] | None:
    """`units` without their quoted words, or None when they have none or those hold more
    than MAX_QUOTED_SHARE of the units' letters (UTF-8 bytes of letters, as the vote weighs)."""
    rest = [unquoted(unit) for unit in units]
    if rest == units:
        return None  # the usual note: no letter counted
    total = sum(map(_letter_bytes, units))
    quoted = total - sum(map(_letter_bytes, rest))
    if quoted == 0 or quoted > MAX_QUOTED_SHARE * total:
        return None
    return [unit for unit in (" ".join(u.split()) for u in rest) if unit]


def _letter_bytes(text: str) -> int:
    return len("".join(ch for ch in text if ch.isalpha()).encode())
