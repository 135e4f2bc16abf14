"""Defence in depth on the query path: whatever the secret detector flags in a hit (a note
committed before the check existed, a record filed before redaction) is shown masked as
`[REDACTED:<kind>]`, in people's output and in the JSON alike."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memidx.search.lexical import Hit, SearchResult

MARKS = ("\x02", "\x03")  # memidx.search.lexical's MARK_START, MARK_END


def masked_text(text: str) -> str:
    """The text with every flagged secret replaced (lines with an allow marker are kept)."""
    from memidx.secrets.detect import mask

    return mask(text)


def masked_snippet(snippet: str) -> str:
    """A snippet whose matched words are marked: masked on its plain text, marks dropped only
    when something was masked (a mark may stand inside the secret)."""
    plain = snippet.replace(MARKS[0], "").replace(MARKS[1], "")
    shown = masked_text(plain)
    return snippet if shown == plain else shown


def masked_hit(hit: Hit) -> Hit:
    title, heading = masked_text(hit.title), hit.heading and masked_text(hit.heading)
    snippet = masked_snippet(hit.snippet)
    if (title, heading, snippet) == (hit.title, hit.heading, hit.snippet):
        return hit
    return replace(hit, title=title, heading=heading, snippet=snippet)


def masked(result: SearchResult) -> SearchResult:
    """The result with every hit masked."""
    return replace(result, hits=tuple(masked_hit(h) for h in result.hits))
