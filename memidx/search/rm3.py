"""Pseudo-relevance feedback on the words (RM3, pure: counts in, weights out). The best few
documents of a first BM25 pass stand in for the relevant ones: the words they share, weighed by
how well each document scored, join the query, and BM25 ranks again with every word weighted.
Bench only (`rm3 ...` candidates): `memidx search` never imports it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Expansion:
    """How the query grows: from its first `docs` documents, the `words` most probable words
    of their relevance model (none in `stopwords`, none in more than `common` of all
    documents), the query's own words keeping `keep` of the weight; `pool` documents are
    ranked again (the first pass's and the best by any word of the grown query). Only a query
    of at least `least` words whose `docs`-th first document scores at least `flat` of the
    best grows (feeds_back); the rest rank as without feedback."""

    docs: int = 10
    words: int = 10
    keep: float = 0.8
    common: float = 0.2
    pool: int = 100
    stopwords: frozenset[str] = frozenset()
    least: int = 0
    flat: float = 0.0


def feeds_back(scores: Sequence[float], words: int, how: Expansion) -> bool:
    """Whether a query of `words` words, whose first pass scored `scores` (best first), grows:
    it has `how.least` words or more, and its `how.docs`-th document (its last, with fewer)
    scores `how.flat` of the best or more. A best far ahead of the rest marks a question
    with one answer, whose neighbours the feedback would bring in."""
    if words < how.least or not scores:
        return False
    if how.flat <= 0:
        return True
    last = scores[min(how.docs, len(scores)) - 1]
    return scores[0] > 0 and last >= how.flat * scores[0]


def relevance_model(feedback: Sequence[tuple[float, Sequence[str]]]) -> dict[str, float]:
    """P(word | relevant) of RM1: each document's words by their share of its length, weighed
    by the document's share of the feedback's scores (a score <= 0 counts for nothing)."""
    total = sum(max(score, 0.0) for score, _ in feedback)
    model: dict[str, float] = {}
    for score, words in feedback:
        if not words or total <= 0 or score <= 0:
            continue
        share = score / total / len(words)
        for word, count in Counter(words).items():
            model[word] = model.get(word, 0.0) + share * count
    return model


def expanded_weights(
    query: Sequence[str],
    model: Mapping[str, float],
    how: Expansion,
    *,
    shown: Mapping[str, str],
    having: Mapping[str, int],
    count: int,
) -> dict[str, float]:
    """Each word of the grown query and its weight: the query's words 1 each, plus, for the
    `how.words` most probable words of `model` (a query's word too) whose form as written,
    `shown`, is no stopword, no number and more than one letter, found in at most `how.common`
    of the `count` documents by `having`, their share of those words'
    probability times the query's length and (1 - keep) / keep: RM3's interpolation, scaled
    so that the query's own words weigh 1."""
    weights = dict.fromkeys(query, 1.0)
    if not query or not 0.0 < how.keep < 1.0 or how.words <= 0:
        return weights
    chosen: list[tuple[str, float]] = []
    for word, p in sorted(model.items(), key=lambda pair: (-pair[1], pair[0])):
        if len(chosen) == how.words:
            break
        written = shown.get(word, word)
        if written in how.stopwords:
            continue
        if written.isdigit() or len(written) < 2 or having.get(word, 0) > how.common * count:
            continue
        chosen.append((word, p))
    total = sum(p for _, p in chosen)
    scale = len(query) * (1.0 - how.keep) / how.keep / total if total > 0 else 0.0
    for word, p in chosen:
        weights[word] = weights.get(word, 0.0) + p * scale
    return weights
