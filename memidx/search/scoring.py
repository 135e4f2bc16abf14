"""The evidence behind each hit's relevance: BM25 against the query's best, and the share of the
query's words the document has (asked of the full-text index only for the hits shown)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memidx.index.store import LexicalRow, Store, matched_masks
from memidx.search.query import Terms, quote
from memidx.search.relevance import Evidence, relevance
from memidx.search.reranker import Order, pool_of, reordered


def hit_evidence(
    store: Store,
    terms: Terms,
    rows: Sequence[LexicalRow],
    ids: Sequence[int],
    *,
    every_word: bool,
    cosines: Mapping[int, float] | None = None,
    masked: Mapping[int, int] | None = None,
    seconds: Mapping[int, float] | None = None,
    rarities: Sequence[float] | None = None,
) -> dict[int, Evidence]:
    """Evidence for documents `ids`, given the word search's ranked `rows` (`every_word` when
    they matched every term) and the best-chunk cosines (None: words only; a document absent
    from them has no vectors and is judged by its words). `masked`: matched_masks of the
    rows, read before (hits.Early). `seconds` (second-best chunks' cosines) and `rarities`
    (each term's IDF, for the weighted coverage) only where the learned re-ranker reads them."""
    scores = {r.id: r.score for r in rows}
    top = max(scores.values(), default=0.0)
    full: set[int] = set(scores) if every_word else set()
    covered = set(scores) if masked is not None and not every_word else set[int]()
    masks = {i: m for i, m in (masked or {}).items() if i in covered}
    ask = [i for i in ids if i not in full and i not in covered]
    masks.update(matched_masks(store.conn, [quote(t) for t in terms.terms], ask))
    size = max(len(terms.terms), 1)
    every = (1 << len(terms.terms)) - 1
    return {
        doc: Evidence(
            None if cosines is None else cosines.get(doc),
            scores.get(doc, 0.0),
            top,
            min(masks.get(doc, 0).bit_count() / size, 1.0) if doc not in full else 1.0,
            None if seconds is None else seconds.get(doc),
            None
            if rarities is None
            else weighted(every if doc in full else masks.get(doc, 0), rarities),
        )
        for doc in ids
    }


def weighted(mask: int, rarities: Sequence[float]) -> float:
    """The share of the terms' weights that the terms in `mask` (bit i: the i-th) carry."""
    total = sum(rarities)
    if total <= 0:
        return 0.0
    return sum(w for bit, w in enumerate(rarities) if mask >> bit & 1) / total


def by_relevance(
    fused: Sequence[tuple[int, float]], evidence: Mapping[int, Evidence]
) -> list[tuple[int, float]]:
    """The documents that have evidence, most relevant first (ties keep the fused order), then
    the rest in their fused order."""
    judged = [pair for pair in fused if pair[0] in evidence]
    judged.sort(key=lambda pair: -relevance(evidence[pair[0]]))
    return judged + [pair for pair in fused if pair[0] not in evidence]


def learned(
    fused: Sequence[tuple[int, float]],
    how: Order,
    rows: Sequence[LexicalRow],
    semantic: Sequence[tuple[int, float, int]],
    *,
    evidence: Mapping[int, Evidence],
    depth: int,
) -> list[tuple[int, float]]:
    """The fused list with its top `how.top` in `how`'s order (reranker.py), given the words'
    ranked rows, the meaning's (doc id, cosine, chunk) and the evidence of the top."""
    pool = pool_of(
        fused,
        how.top,
        bm25_rank={r.id: n for n, r in enumerate(rows, 1)},
        vector_rank={doc: n for n, (doc, _, _) in enumerate(semantic, 1)},
        evidence=evidence,
        depth=depth,
    )
    return reordered(fused, pool, how)
