"""A calibrated relevance per hit (pure, no numpy: `--mode bm25` stays light).

RRF and BM25 scores only order the hits of one query. `relevance` is a probability that the hit
answers the query, the same scale for every query, so a caller can say "nothing here is
relevant" (the agents' recall gate injects the hits it lets through most relevant first). It
is a logistic model over what the search already knows about a hit: the cosine of its best
chunk, its BM25 against the query's best BM25, and the share of the query's words the
document has. The coefficients were fitted on the dev splits only by `python -m
tests.benchmark.calibrate fit` (numpy, offline) and are pasted here with the figures that
script printed; `calibrate check` scores them on test splits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Evidence:
    """What one query knows about one hit."""

    cosine: float | None  # best chunk's cosine; None when vectors are not used
    bm25: float  # the hit's BM25 (higher is better); 0 when the words did not rank it
    top_bm25: float  # the best BM25 of the query; 0 when the words ranked nothing
    coverage: float  # share of the query's words that the document has, 0..1
    # for the learned re-ranker (reranker.py); None where the search did not ask
    second_cosine: float | None = None  # its second-best chunk's (its only chunk's) cosine
    weighted_coverage: float | None = None  # the coverage with each word weighing its IDF


# Feature order: see features(). Fitted by `python -m tests.benchmark.calibrate fit` on dev
# splits only: with vectors the golden and TIL sets (2,380 hits, 148 relevant); by words the
# golden, TIL and LoCoMo sets. Test-split figures: README, "Relevance".
# bias, cosine, bm25/top, log1p(bm25), coverage
WITH_VECTORS = (-12.118, 12.671, 11.718, -2.987, 2.341)
WORDS_ONLY = (-12.198, 8.766, 0.270, 3.612)  # bias, bm25/top, log1p(bm25), coverage


def features(evidence: Evidence) -> tuple[float, ...]:
    """The model's inputs, without the bias; the cosine first when there is one."""
    share = evidence.bm25 / evidence.top_bm25 if evidence.top_bm25 > 0 else 0.0
    lexical = (share, math.log1p(max(evidence.bm25, 0.0)), evidence.coverage)
    return lexical if evidence.cosine is None else (evidence.cosine, *lexical)


def relevance(
    evidence: Evidence,
    with_vectors: tuple[float, ...] = WITH_VECTORS,
    words_only: tuple[float, ...] = WORDS_ONLY,
) -> float:
    """The probability that the hit is relevant, from the model that fits its evidence."""
    values = features(evidence)
    weights = words_only if evidence.cosine is None else with_vectors
    return logistic(weights[0] + sum(w * x for w, x in zip(weights[1:], values, strict=True)))


def logistic(z: float) -> float:
    """1 / (1 + e^-z), without overflow for large |z|."""
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)
