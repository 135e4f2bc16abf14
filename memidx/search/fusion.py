"""Rank fusion and vector ranking (pure: lists and arrays in, lists out)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

K = TypeVar("K", bound=Hashable)

RRF_K = 60


@dataclass(frozen=True, slots=True)
class Fusion:
    """How the words' and the meaning's rankings become one (the defaults are memidx's; the
    others are benchmark candidates, `make bench ONLY=ranking`)."""

    method: str = "rrf"  # or "convex": min-max normalised scores
    weights: tuple[float, float] = (1.0, 1.0)  # RRF: the words', the meaning's
    alpha: float = 0.5  # convex: the words' share
    chunks: bool = False  # RRF over chunks: each of a note's chunks in the meaning's list counts
    k: int = RRF_K  # RRF: smaller lets the first ranks count more


def fuse_rankings(
    words: Sequence[tuple[K, float]] | None, meaning: Sequence[tuple[K, float]], how: Fusion
) -> list[tuple[K, float]]:
    """One ranking from the words' (None: by meaning alone) and the meaning's (a key may recur
    there, once per chunk) scored lists, best first."""
    if words is None:
        return first_each(meaning)
    if how.method == "convex":
        return convex(words, first_each(meaning), how.alpha)
    rankings = [[k for k, _ in words], [k for k, _ in meaning]]
    return rrf(rankings, k=how.k, weights=list(how.weights))


def first_each(scored: Sequence[tuple[K, float]]) -> list[tuple[K, float]]:
    """Each key once, where it first appears."""
    seen: dict[K, float] = {}
    for key, score in scored:
        seen.setdefault(key, score)
    return list(seen.items())


def rrf(
    rankings: Sequence[Sequence[K]], k: int = RRF_K, weights: Sequence[float] | None = None
) -> list[tuple[K, float]]:
    """Reciprocal Rank Fusion: score(d) = sum over rankings of w / (k + rank of d), rank from 1.
    Ties keep the order in which items first appear (earlier rankings first)."""
    weights = weights if weights is not None else [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError("one weight per ranking")
    scores: dict[K, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    order = {item: i for i, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda pair: (-pair[1], order[pair[0]]))


def convex(
    lexical: Sequence[tuple[K, float]], semantic: Sequence[tuple[K, float]], alpha: float = 0.5
) -> list[tuple[K, float]]:
    """A convex combination of min-max normalised scores: alpha * words + (1 - alpha) * meaning;
    a document missing from one list scores 0 there. Ties keep first appearance."""
    scores: dict[K, float] = {}
    for ranking, weight in ((lexical, alpha), (semantic, 1.0 - alpha)):
        values = [score for _, score in ranking]
        low, span = (min(values), max(values) - min(values)) if values else (0.0, 0.0)
        for item, score in ranking:
            share = (score - low) / span if span > 0 else 1.0
            scores[item] = scores.get(item, 0.0) + weight * share
    order = {item: i for i, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda pair: (-pair[1], order[pair[0]]))


def best_chunks(
    similarities: NDArray[np.float32],
    doc_ids: NDArray[np.int64],
    depth: int,
) -> list[tuple[int, float, int]]:
    """The `depth` best documents by their best chunk: (doc id, cosine, chunk position)."""
    if similarities.size == 0 or depth <= 0:
        return []
    # Enough top chunks to cover `depth` documents in all but pathological cases, then exact.
    take = min(similarities.size, depth * 8)
    top = (
        np.argpartition(-similarities, take - 1)[:take]
        if take < similarities.size
        else np.arange(similarities.size)
    )
    top = top[np.argsort(-similarities[top], kind="stable")]
    chosen: dict[int, tuple[float, int]] = {}
    for position in top:
        doc = int(doc_ids[position])
        if doc not in chosen:
            chosen[doc] = (float(similarities[position]), int(position))
            if len(chosen) == depth:
                break
    if len(chosen) < depth and take < similarities.size:
        return best_chunks_exact(similarities, doc_ids, depth)
    return [(doc, score, pos) for doc, (score, pos) in chosen.items()]


def top_chunks(
    similarities: NDArray[np.float32], doc_ids: NDArray[np.int64], depth: int
) -> list[tuple[int, float, int]]:
    """The best chunks, best first, until a chunk of a document past the `depth`-th: (doc id,
    cosine, chunk position); a document recurs once per chunk of it among them."""
    if similarities.size == 0 or depth <= 0:
        return []
    order = np.argsort(-similarities, kind="stable")
    found: list[tuple[int, float, int]] = []
    docs: set[int] = set()
    for position in order.tolist():
        doc = int(doc_ids[position])
        if doc not in docs and len(docs) == depth:
            break
        docs.add(doc)
        found.append((doc, float(similarities[position]), int(position)))
    return found


def best_chunks_exact(
    similarities: NDArray[np.float32], doc_ids: NDArray[np.int64], depth: int
) -> list[tuple[int, float, int]]:
    """The same as best_chunks, sorting every chunk (used when documents have many chunks)."""
    chosen: dict[int, tuple[float, int]] = {}
    for position in np.argsort(-similarities, kind="stable"):
        doc = int(doc_ids[position])
        if doc not in chosen:
            chosen[doc] = (float(similarities[position]), int(position))
            if len(chosen) == depth:
                break
    return [(doc, score, pos) for doc, (score, pos) in chosen.items()]
