"""Lexical search: strict AND, then ranked OR; hits with marked snippets and line numbers."""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from dataclasses import replace as changed
from typing import TYPE_CHECKING, TypeVar

from memidx.frozen import replace
from memidx.index import documents
from memidx.index.store import Filters, LexicalRow, Store, VectorStore, matched_terms
from memidx.notes.words import PRIVATE_USE, WORD, fold
from memidx.search.masking import masked, masked_snippets, private_labels
from memidx.search.query import Terms, match_all, match_any, query_terms, quote
from memidx.search.relevance import Evidence, relevance
from memidx.search.scoring import hit_evidence
from memidx.search.window import MARK_END, MARK_START, window_at

if TYPE_CHECKING:  # the bench's BM25 (okapi, term_stats): `memidx search` never loads it
    from memidx.search.okapi import Saturation
    from memidx.search.rm3 import Expansion

LONG_BODY = 64 * 1024  # characters: longer bodies get their snippet from window()
POOL = 3  # with a coverage bonus, this many times the depth are ranked by OR, then re-ordered


MEANING = "meaning"  # a hit the vectors found and the words did not
K = TypeVar("K", bound=Hashable)


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
    meta: Mapping[str, object] = field(default_factory=dict[str, object])
    ranks: Mapping[str, int] = field(default_factory=dict[str, int])
    match: str | None = None  # "and", "or" (by words) or "meaning" (by the vectors alone)
    relevance: float | None = None  # probability of relevance, the same scale for every query
    evidence: Evidence | None = None  # what the relevance was computed from


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The hits of one query and how they were found."""

    query: str
    terms: Terms
    engine: str
    match: str | None
    hits: tuple[Hit, ...]
    warnings: tuple[str, ...] = ()
    unsearched: tuple[str, ...] = ()  # words of a long query not searched (the first few)
    unsearched_count: int = 0  # how many in all


@dataclass(frozen=True, slots=True)
class LexicalRanking:
    """Documents ranked by BM25, and the FTS5 expression that matched them."""

    terms: Terms
    match: str
    expression: str
    rows: list[LexicalRow]


def rank_lexical(
    store: Store,
    text: str,
    filters: Filters,
    depth: int,
    bonus: float = 0.0,
    *,
    saturation: Saturation | None = None,
    expansion: Expansion | None = None,
) -> LexicalRanking:
    """BM25 ranking: all terms must match; only when no document has them all, any term may.
    With a `bonus` (a benchmark candidate), any term may, and BM25 grows with coverage. With a
    `saturation` (a benchmark candidate), FTS5's best POOL x depth are scored again by BM25
    with its k1 and b (okapi.py). With an `expansion` (a benchmark candidate), the query grows
    by feedback from its best documents and any of its words may match (expansion.py)."""
    terms = query_terms(text)
    if bonus > 0 and len(terms.terms) > 1:
        return _with_coverage(store, terms, filters, depth, bonus)
    wanted = depth * POOL if saturation is not None else depth
    wanted = max(wanted, expansion.pool) if expansion is not None else wanted
    expression = match_all(terms)
    rows = store.lexical(expression, filters, wanted)
    match = "and"
    if not rows and len(terms.terms) > 1:
        expression, match = match_any(terms), "or"
        rows = store.lexical(expression, filters, wanted)
    if saturation is not None:
        rows = resaturated(store, terms, rows, saturation)[:depth]
    if expansion is not None:
        from memidx.search.expansion import expanded  # bench only, as resaturated's
        from memidx.search.rm3 import feeds_back

        if feeds_back([r.score for r in rows], len(terms.terms), expansion):
            rows = expanded(store, terms, filters, rows, expansion)
            expression = match_any(terms)
            match = "or"  # a grown query's rows need not have the query's words, one word's too
    return LexicalRanking(terms, match, expression, rows[:depth])


def resaturated(
    store: Store, terms: Terms, rows: Sequence[LexicalRow], how: Saturation
) -> list[LexicalRow]:
    """The rows by BM25 with `how`'s k1 and b (ties by ref, as FTS5's are), each with it."""
    from memidx.index import term_stats  # bench only: every search process paid ~2.4 ms
    from memidx.search.okapi import idf, okapi

    conn, ids = store.conn, [r.id for r in rows]
    if not ids:
        return []
    words = term_stats.stems(conn, [fold(t) for t in terms.terms])
    count, tokens = term_stats.totals(conn)
    scores = okapi(
        [term_stats.postings(conn, w, ids) if w else {} for w in words],
        [idf(count, term_stats.having(conn, w)) if w else 0.0 for w in words],
        term_stats.lengths(conn, ids),
        tokens / count if count else 0.0,
        documents.BM25_WEIGHTS,  # read now: the bench's field-weight candidates change it
        how=how,
        records={r.id for r in rows if r.source_kind != "note"},
    )
    ranked = sorted(rows, key=lambda r: (-scores.get(r.id, 0.0), r.source_ref))
    return [replace(r, score=scores.get(r.id, 0.0)) for r in ranked]


def _with_coverage(
    store: Store, terms: Terms, filters: Filters, depth: int, bonus: float
) -> LexicalRanking:
    """Ranked OR over POOL x depth documents, re-ordered by BM25 x (1 + bonus x the share of
    the query's words each has); the rows keep their BM25 (the relevance's evidence)."""
    expression = match_any(terms)
    rows = store.lexical(expression, filters, depth * POOL)
    counts = matched_terms(store.conn, [quote(t) for t in terms.terms], [r.id for r in rows])
    shares = {doc: n / len(terms.terms) for doc, n in counts.items()}
    order = by_coverage([(r.id, r.score) for r in rows], shares, bonus)[:depth]
    by_id = {r.id: r for r in rows}
    return LexicalRanking(terms, "or", expression, [by_id[doc] for doc, _ in order])


def by_coverage(
    scored: Sequence[tuple[K, float]], shares: Mapping[K, float], bonus: float
) -> list[tuple[K, float]]:
    """Scores (higher is better, >= 0) times 1 + bonus x the share of the query's words each key
    has (absent: 0), best first; ties keep the given order."""
    grown = [(key, score * (1.0 + bonus * shares.get(key, 0.0))) for key, score in scored]
    return sorted(grown, key=lambda pair: -pair[1])


def lexical_search(
    store: Store,
    text: str,
    filters: Filters,
    limit: int,
    bonus: float = 0.0,
    *,
    saturation: Saturation | None = None,
    expansion: Expansion | None = None,
) -> SearchResult:
    """Search by words only (`--mode bm25`)."""
    ranking = rank_lexical(
        store, text, filters, limit, bonus, saturation=saturation, expansion=expansion
    )
    hits = lexical_hits(store, ranking.expression, ranking.rows, ranking.terms.terms)
    ids = [r.id for r in ranking.rows]
    found = hit_evidence(store, ranking.terms, ranking.rows, ids, every_word=ranking.match == "and")
    hits = [
        changed(h, match=ranking.match, relevance=relevance(found[i]), evidence=found[i])
        for h, i in zip(hits, ids, strict=True)
    ]
    result = SearchResult(text, ranking.terms, "bm25", ranking.match, tuple(hits))
    return masked(result)  # secrets stored before redaction never reach the output


def snippets(
    store: Store, expression: str, terms: Sequence[str], bodies: Mapping[int, str]
) -> dict[int, str]:
    """Marked snippets of documents: FTS5's snippet() for ordinary bodies; for very long ones
    (a transcript), a window found here, because snippet() slows down with every match, and for
    those with private-use characters, which snippet() reads as letters where the index read
    spaces (memidx.notes.words.fold): it would mark the wrong words."""
    windowed = {i for i, body in bodies.items() if len(body) > LONG_BODY or private_use(body)}
    found = store.snippets(
        expression, [i for i in bodies if i not in windowed], MARK_START, MARK_END
    )
    starts: dict[int, int] = {}  # where a window's text starts: FTS5 does not say
    for doc_id in windowed:
        found[doc_id], start = window_at(bodies[doc_id], terms)
        starts[doc_id] = start or 0  # None: an excerpt of the body's start, masked already
    return masked_snippets(found, bodies, starts)


def private_use(body: str) -> bool:
    """Whether a body holds a private-use character (which the index reads as a space)."""
    return not body.isascii() and PRIVATE_USE.search(body) is not None


def lexical_hits(
    store: Store, expression: str, rows: Sequence[LexicalRow], terms: Sequence[str] = ()
) -> list[Hit]:
    """Hits for ranked rows, each with a marked snippet and the line of its best match."""
    ids = [r.id for r in rows]
    bodies = store.bodies(ids) if ids else {}
    found = snippets(store, expression, terms, bodies)
    headings = VectorStore(store.conn).headings(ids) if ids else {}
    hits: list[Hit] = []
    for rank, row in enumerate(rows, start=1):
        line = row.body_line + match_line(bodies.get(row.id, ""), found.get(row.id, ""))
        title, heading = private_labels(  # a heading inside a private span is none to show
            bodies.get(row.id, ""),
            [
                row.title or record_title(row.source_kind, row.meta),
                heading_at(headings.get(row.id, []), line),
            ],
        )
        hits.append(
            Hit(
                rank=rank,
                kind=row.source_kind,
                ref=row.source_ref,
                title=title or "",
                score=row.score,
                snippet=found.get(row.id, ""),
                line=line,
                tags=row.tags,
                heading=heading,
                meta=row.meta,
                ranks={"bm25": rank},
            )
        )
    return hits


def heading_at(chunks: Sequence[tuple[int, str | None]], line: int) -> str | None:
    """The heading over `line`, from the (first line, heading) of a document's chunks."""
    heading = None
    for first, chunk_heading in chunks:
        if first <= line:
            heading = chunk_heading
    return heading


def record_title(kind: str, meta: Mapping[str, object]) -> str:
    """What a hit of a record (which has no title) is called: kind, agent, time, drawer."""
    parts = [kind]
    for key in ("agent", "ts", "drawer"):
        value = meta.get(key)
        if value:
            parts.append(str(value))
    return " · ".join(parts)


def match_line(body: str, snippet: str) -> int:
    """Zero-based line of the body where the snippet's first marked term stands."""
    first = snippet.find(MARK_START)
    if first < 0:
        return 0
    before = snippet[:first].replace(MARK_END, "").replace(MARK_START, "").lstrip("…")
    term_end = snippet.find(MARK_END, first)
    term = snippet[first + 1 : term_end if term_end > 0 else None]
    for anchor, offset in ((before + term, len(before)), (term, 0)):
        pos = _find_words(body, anchor) if anchor else -1
        if pos >= 0:
            return body.count("\n", 0, pos + offset)
    return 0


def _find_words(body: str, text: str) -> int:
    """Where `text` first stands in `body` as whole words, never inside a longer word ("lock"
    in "blocked"); -1 when nowhere."""
    start = r"(?<![^\W_])" if WORD.match(text) else ""
    end = r"(?![^\W_])" if WORD.match(text[-1]) else ""
    found = re.search(start + re.escape(text) + end, body)
    return found.start() if found else -1
