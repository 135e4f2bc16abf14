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


def masked(result: SearchResult) -> SearchResult:
    """The result with its hits masked (masked_hits)."""
    hits = masked_hits(result.hits)
    return result if hits is result.hits else replace(result, hits=hits)


def masked_hits(found: tuple[Hit, ...]) -> tuple[Hit, ...]:
    """Every hit's title, heading, snippet, tags and text in `meta` (a record's agent,
    session, drawer) masked, in one detector pass (a snippet's match marks are dropped only
    where something was masked: a mark may stand inside the secret); `found` itself when
    nothing was."""
    from memidx.secrets.detect import mask_many

    texts: list[str] = []
    for hit in found:
        texts += [hit.title, hit.heading or "", _plain(hit.snippet), *hit.tags]
        texts += [v for v in hit.meta.values() if isinstance(v, str)]
    shown = mask_many(texts)
    if shown == texts:
        return found
    hits: list[Hit] = []
    start = 0
    for hit in found:
        end = start + 3 + len(hit.tags)
        title, heading, snippet, *tags = shown[start:end]
        if snippet == texts[start + 2]:
            snippet = hit.snippet  # nothing masked there: keep its match marks
        meta = dict(hit.meta)
        for key, value in hit.meta.items():
            if isinstance(value, str):
                meta[key], end = shown[end], end + 1
        start = end
        hits.append(
            replace(
                hit,
                title=title,
                heading=heading or hit.heading,
                snippet=snippet,
                tags=tuple(tags),
                meta=meta,
            )
        )
    return tuple(hits)


def _plain(snippet: str) -> str:
    return snippet.replace(MARKS[0], "").replace(MARKS[1], "")
