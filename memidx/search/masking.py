"""Defence in depth on the query path: whatever the secret detector flags in a hit (a note
committed before the check existed, a record filed before redaction) is shown masked as
`[REDACTED:<kind>]`, in people's output and in the JSON alike."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memidx.search.lexical import Hit, SearchResult
    from memidx.secrets.patterns import Finding

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


def masked_snippets(found: Mapping[int, str], bodies: Mapping[int, str]) -> dict[int, str]:
    """Each document's snippet with every secret that reaches into it masked, read in its body
    around it: a snippet cuts a secret where its words end (a token's first half stays, a
    value loses the name that made it a secret), and masked alone it showed that part. A
    snippet not found in its body as it is (never, but cheap to be sure of) is masked alone."""
    from memidx.secrets.cuts import piece_findings

    pieces: list[tuple[str, int, int]] = []
    places: dict[int, int] = {}  # document: where its snippet's text starts after its `…`
    for doc, snippet in found.items():
        body, plain = bodies.get(doc, ""), _plain(snippet)
        at = body.find(plain)
        lead = 0
        if at < 0:
            lead = 1 if plain.startswith("…") else 0
            plain = plain[lead:].removesuffix("…")
            at = body.find(plain) if plain else -1
        if at >= 0:
            places[doc] = lead
            pieces.append((body, at, at + len(plain)))
    located = dict(zip(places, piece_findings(pieces), strict=True))
    return {doc: _masked(s, places.get(doc, 0), located.get(doc)) for doc, s in found.items()}


def _masked(snippet: str, lead: int, own: list[Finding] | None) -> str:
    """The snippet with the secrets found in its body masked; its match marks kept unless a
    secret runs through one (a mark of a word of the secret would be left unpaired)."""
    if not own:  # None: masked alone, as every hit is (masked_hits)
        return snippet
    shown = [i for i, char in enumerate(snippet) if char not in MARKS]  # plain offset -> here
    spans = [(shown[f.start + lead], shown[f.end - 1 + lead] + 1, f.kind) for f in own]
    if any(mark in snippet[a:b] for a, b, _ in spans for mark in MARKS):
        plain = _plain(snippet)
        spans = [(f.start + lead, f.end + lead, f.kind) for f in own]
        snippet = plain
    pieces: list[str] = []
    cursor = 0
    for start, end, kind in spans:
        pieces += [snippet[cursor:start], f"[REDACTED:{kind}]"]
        cursor = end
    return "".join([*pieces, snippet[cursor:]])
