"""The evidence of each candidate turn and of its session's neighbouring turns (context.py's
model), read from the index and the vectors for the fused candidates only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from memidx.index import documents
from memidx.index.coverage import bm25_of, matched_terms
from memidx.index.lookup_rows import adjacent_turns
from memidx.index.store import Store
from memidx.search.context import TurnEvidence, reorder_turns, turn_relevance
from memidx.search.query import Terms, match_any, quote, tokenize

POOL = 40  # fused candidates whose turns are re-ordered (all of them at depth 20)


class Cosines(Protocol):
    """The vectors (vector_index.VectorIndex): the best chunk's cosine of given documents."""

    def cosines(self, query: NDArray[np.float32], docs: Sequence[int]) -> dict[int, float]: ...


def turn_evidence(
    store: Store,
    vectors: Cosines,
    query: NDArray[np.float32],
    terms: Terms,
    pool: Sequence[int],
    *,
    cosines: Mapping[int, float],
) -> dict[int, TurnEvidence]:
    """The evidence of the turns among `pool` (other documents are left out); `cosines`:
    those already known."""
    adjacent = adjacent_turns(store, pool)
    if not adjacent:
        return {}
    every = sorted({*adjacent, *(n for _, near in adjacent.values() for n in near)})
    known = {d: c for d, c in cosines.items() if d in set(every)}
    known.update(vectors.cosines(query, [d for d in every if d not in known]))
    scores = bm25_of(store.conn, match_any(terms), every, documents.BM25_WEIGHTS)
    counts = matched_terms(store.conn, [quote(t) for t in terms.terms], every)
    size = max(len(terms.terms), 1)
    coverage = {d: min(counts.get(d, 0) / size, 1.0) for d in every}
    top = max(scores.values(), default=0.0)
    words = set(terms.terms)
    found: dict[int, TurnEvidence] = {}
    for doc, (agent, near) in adjacent.items():
        found[doc] = TurnEvidence(
            known.get(doc, 0.0),
            scores.get(doc, 0.0),
            top,
            coverage[doc],
            max((known.get(n, 0.0) for n in near), default=0.0),
            max((scores.get(n, 0.0) for n in near), default=0.0),
            max((coverage[n] for n in near), default=0.0),
            bool(words & set(tokenize(agent))),
        )
    return found


def in_context(
    store: Store,
    vectors: Cosines,
    query: NDArray[np.float32],
    terms: Terms,
    fused: Sequence[tuple[int, float]],
    *,
    cosines: Mapping[int, float],
) -> list[tuple[int, float]]:
    """The fused ranking with its first POOL candidates' turns re-ordered in their sessions'
    context (context.py); notes keep their places."""
    head = fused[:POOL]
    found = turn_evidence(store, vectors, query, terms, [d for d, _ in head], cosines=cosines)
    if not found:
        return list(fused)
    scores = {doc: turn_relevance(evidence) for doc, evidence in found.items()}
    return [*reorder_turns(head, scores), *fused[POOL:]]
