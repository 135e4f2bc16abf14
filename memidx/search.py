"""Ranked search over the index: strict AND, then ranked OR; hits with snippets and lines."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from memidx.query import Terms, match_all, match_any, query_terms
from memidx.store import Filters, LexicalRow, Store

# Markers that cannot occur in a note's text; replaced by the output's own markers.
MARK_START, MARK_END = "\x02", "\x03"


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result."""

    rank: int
    kind: str
    ref: str
    title: str
    score: float
    snippet: str
    line: int
    tags: tuple[str, ...] = ()
    heading: str | None = None
    meta: dict[str, object] = field(default_factory=dict[str, object])


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The hits of one query and how they were found."""

    query: str
    terms: Terms
    mode: str
    hits: tuple[Hit, ...]
    warnings: tuple[str, ...] = ()


def lexical_search(store: Store, text: str, filters: Filters, limit: int) -> SearchResult:
    """BM25 search: all terms must match; only when none does, any term may."""
    terms = query_terms(text)
    mode, match, rows = "and", match_all(terms), store.lexical(match_all(terms), filters, limit)
    if not rows and len(terms.terms) > 1:
        mode, match = "or", match_any(terms)
        rows = store.lexical(match, filters, limit)
    hits = tuple(lexical_hits(store, match, rows))
    return SearchResult(text, terms, mode, hits, _term_warnings(terms))


def lexical_hits(store: Store, match: str, rows: Sequence[LexicalRow]) -> list[Hit]:
    """Hits for ranked rows, each with a marked snippet and the line of its best match."""
    ids = [r.id for r in rows]
    snippets = store.snippets(match, ids, MARK_START, MARK_END)
    bodies = store.bodies(ids) if ids else {}
    hits: list[Hit] = []
    for rank, row in enumerate(rows, start=1):
        snippet = snippets.get(row.id, "")
        line = row.body_line + match_line(bodies.get(row.id, ""), snippet)
        hits.append(
            Hit(
                rank,
                row.source_kind,
                row.source_ref,
                row.title,
                row.score,
                snippet,
                line,
                row.tags,
                None,
                row.meta,
            )
        )
    return hits


def match_line(body: str, snippet: str) -> int:
    """Zero-based line of the body where the snippet's first marked term stands."""
    first = snippet.find(MARK_START)
    if first < 0:
        return 0
    before = snippet[:first].replace(MARK_END, "").replace(MARK_START, "").lstrip("…")
    term_end = snippet.find(MARK_END, first)
    term = snippet[first + 1 : term_end if term_end > 0 else None]
    anchor = before + term
    pos = body.find(anchor) if anchor else -1
    if pos < 0:
        pos = body.find(term)
        return body.count("\n", 0, pos) if pos >= 0 else 0
    return body.count("\n", 0, pos + len(before))


def _term_warnings(terms: Terms) -> tuple[str, ...]:
    if terms.truncated:
        return (f"the query has many words; only the first {len(terms.terms)} were searched",)
    return ()
