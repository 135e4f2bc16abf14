"""Defence in depth on the query path: whatever the secret detector flags in a hit (a note
committed before the check existed, a record filed before redaction) is shown masked as
`[REDACTED:<kind>]`, in people's output and in the JSON alike."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
    where something was masked: a mark may stand inside the secret), a note's private spans
    shown (shown_spans); `found` itself when nothing was."""
    from memidx.secrets.detect import mask_many

    found = shown_spans(found)
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


def shown_spans(found: tuple[Hit, ...]) -> tuple[Hit, ...]:
    """The hits with each private span a row holds (its stand-in, in a title, heading,
    snippet or tag: a note's, and a record's since record reader 5) shown as
    `[REDACTED:private]`, each `␡` of its own as `␡`; `found` itself when none holds one."""
    from memidx.private import PRIVATE_STAND_IN, shown_private

    def holds(hit: Hit) -> bool:
        labels = (hit.title, hit.heading or "", hit.snippet, *hit.tags)
        return any(PRIVATE_STAND_IN in label for label in labels)

    if not any(holds(hit) for hit in found):
        return found
    return tuple(
        replace(
            hit,
            title=shown_private(hit.title),
            heading=None if hit.heading is None else shown_private(hit.heading),
            snippet=shown_private(hit.snippet),
            tags=tuple(shown_private(tag) for tag in hit.tags),
        )
        if holds(hit)
        else hit
        for hit in found
    )


def private_labels(body: str, labels: Sequence[str | None]) -> list[str | None]:
    """Each label (a hit's title or heading) shown as `[REDACTED:private]` where it is the text
    of a heading of `body` that stands only inside `<private>` spans: a note's title is its
    first heading's text and a hit's heading its chunk's, so one from inside a span showed the
    words its snippet masks (masked alone, a label holds neither tag)."""
    from bisect import bisect_right

    from memidx.notes.markdown import scan
    from memidx.private import PRIVATE_MARK, PRIVATE_TAG, private_ranges

    if not any(labels) or "<" not in body or PRIVATE_TAG.search(body) is None:
        return list(labels)
    spans = private_ranges(body)
    starts = [start for start, _ in spans]
    inside: set[str] = set()
    outside: set[str] = set()
    at = 0  # where the line starts in `body`
    for line, _, heading in scan(body.split("\n")):
        if heading is not None and heading.text:
            index = bisect_right(starts, at) - 1
            hidden = index >= 0 and at < spans[index][1]
            (inside if hidden else outside).add(heading.text)
        at += len(line) + 1
    private = inside - outside
    return [PRIVATE_MARK if label in private else label for label in labels]


SPREAD = 16_384  # characters over which a snippet's places are read as one piece (masked_snippets)


def _plain(snippet: str) -> str:
    return snippet.replace(MARKS[0], "").replace(MARKS[1], "")


def masked_snippets(
    found: Mapping[int, str], bodies: Mapping[int, str], starts: Mapping[int, int] | None = None
) -> dict[int, str]:
    """Each document's snippet with every secret that reaches into it masked, read in its body
    around it: a snippet cuts a secret where its words end (a token's first half stays, a
    value loses the name that made it a secret), and masked alone it showed that part.
    `starts`: where a snippet's text starts in its body, where that is known (window()); FTS5
    does not say which place it cut its snippet from, so a text that stands in its body more
    than once is read at its first place: holding nothing there, its words are in plain view
    and shown as they are; else it is masked wherever any of its places holds a secret, or
    whole where its places spread over more than SPREAD (one piece over them all cost 0.33 s
    a snippet in a 64 KB note dense with assignments). The body's own match marks (a control
    character in a turn) are taken out of it, as they are out of the snippet to find it. A
    snippet not found in its body (never, but cheap to be sure of) is masked alone."""
    from memidx.secrets.cuts import piece_findings
    from memidx.secrets.patterns import Finding

    located: dict[int, tuple[str, int, list[int], int]] = {}  # body, lead, places, length
    for doc, snippet in found.items():
        body, start = bodies.get(doc, ""), (starts or {}).get(doc)
        if MARKS[0] in body or MARKS[1] in body:  # its own, which _plain takes from its snippet
            start = None if start is None else len(_plain(body[:start]))
            body = _plain(body)  # found as it was, the snippet was masked alone
        if place := _places(body, _plain(snippet), start):
            located[doc] = (body, *place)
    out = dict(found)
    firsts = piece_findings([(body, at[0], at[0] + size) for body, _, at, size in located.values()])
    spread: dict[int, tuple[str, int, list[int], int]] = {}
    for (doc, (body, lead, at, size)), own in zip(located.items(), firsts, strict=True):
        if len(at) > 1 and own and at[-1] + size - at[0] <= SPREAD:
            spread[doc] = (body, lead, at, size)
        elif len(at) > 1 and own:
            out[doc] = _masked(found[doc], lead, [Finding(0, size, own[0].kind)])
        else:
            out[doc] = _masked(found[doc], lead, own)
    pieces = [(body, at[0], at[-1] + size) for body, _, at, size in spread.values()]
    for (doc, (_, lead, at, size)), own in zip(spread.items(), piece_findings(pieces), strict=True):
        out[doc] = _masked(found[doc], lead, _union(own, at, size))
    return out


def _places(body: str, plain: str, start: int | None) -> tuple[int, list[int], int] | None:
    """The snippet's lead (1 after a `…` the body does not hold there, else 0), every place
    its text stands in the body (`start` alone where known) and that text's length; None when
    it stands nowhere (or not at `start`): it is then masked alone."""
    trimmed = plain.removeprefix("…").removesuffix("…")
    candidates = [(0, plain)]
    if trimmed != plain:
        candidates.append((int(plain.startswith("…")), trimmed))
    if start is not None:  # a long body is never searched: its snippet says where it is
        found = [(lead, text) for lead, text in candidates if text and body.startswith(text, start)]
        return (found[0][0], [start], len(found[0][1])) if found else None
    for lead, text in candidates:
        at, places = body.find(text) if text else -1, list[int]()
        while at != -1:  # overlapping places too: `abab` stands twice in `ababab`
            places.append(at)
            at = body.find(text, at + 1)
        if places:
            return lead, places, len(text)
    return None


def _union(found: list[Finding], places: list[int], size: int) -> list[Finding]:
    """The findings of a piece from `places[0]` that overlap any of the `size` characters from
    each place, placed in those characters and clipped to them, joined: one place the snippet
    may have been cut from holds a secret, so the snippet's characters there are masked."""
    from bisect import bisect_right

    from memidx.secrets.patterns import Finding, merged

    ends = [f.end for f in found]
    own: set[Finding] = set()
    for place in places:
        low = place - places[0]
        index = bisect_right(ends, low)  # the first finding that ends after `low`
        while index < len(found) and found[index].start < low + size:
            f = found[index]
            own.add(Finding(max(f.start, low) - low, min(f.end, low + size) - low, f.kind))
            index += 1
    return merged(own)


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
