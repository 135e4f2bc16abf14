# Quotation marks of every kind are the point of this module.
# ruff: noqa: RUF001, RUF003
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
_SINGLE = r"""
    (?<![^\W_]){open}(?=[^\W\d_])(?:[^{close}\n]|{close}(?=[^\W_]))*{close}(?![^\W_])
"""
QUOTED = re.compile(
    r"""
    "[^"\n]*"                                   # "straight"
    | \u201c[^\u201d\n]*\u201d                  # “English”
    | \u201e[^\u201c\u201d\n]*[\u201c\u201d]    # „German“, „Polish”
    | \u00ab[^\u00bb\n]*\u00bb                  # «French»
    | \u00bb[^\u00ab\u00bb\n]*[\u00ab\u00bb]    # »German«, »Swedish»
    | \u201a[^\u2018\u2019\n]*[\u2018\u2019]    # ‚German‘
    """
    + "|"
    + _SINGLE.format(open="\u2018", close="\u2019")  # ‘English’
    + "|"
    + _SINGLE.format(open="'", close="'"),  # 'straight'
    re.VERBOSE,
)
_OPENING = re.compile("[\"'\u201c\u201e\u00ab\u00bb\u201a\u2018]")  # what QUOTED starts with: cheap
MAX_QUOTED_SHARE = 0.5  # of the prose's letter bytes: more, and the quotes are the note


def set_quotes_aside(units: Sequence[str]) -> list[str] | None:
    """`units` without their quoted words, or None when they have none or those hold more
    than MAX_QUOTED_SHARE of the units' letters (UTF-8 bytes of letters, as the vote weighs)."""
    unquoted = [QUOTED.sub(" ", unit) if _OPENING.search(unit) else unit for unit in units]
    if unquoted == units:
        return None  # the usual note: no letter counted
    total = sum(map(_letter_bytes, units))
    quoted = total - sum(map(_letter_bytes, unquoted))
    if quoted == 0 or quoted > MAX_QUOTED_SHARE * total:
        return None
    return [unit for unit in (" ".join(u.split()) for u in unquoted) if unit]


def _letter_bytes(text: str) -> int:
    return len("".join(ch for ch in text if ch.isalpha()).encode())
