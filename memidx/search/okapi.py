"""BM25 with a chosen k1 and b (pure: counts in, scores out). FTS5's bm25() fixes k1 = 1.2 and
b = 0.75; this reproduces it, weighted columns and all, for any other pair (the counts come from
memidx.index.term_stats)."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Saturation:
    """BM25's two constants: how fast a word's repeats stop counting (k1) and how much a long
    document's length discounts them (b)."""

    k1: float = 1.2
    b: float = 0.75
    records: tuple[float, float] | None = None  # k1 and b for records (turns...), else the same

    def of(self, record: bool) -> tuple[float, float]:
        """k1 and b for a note, or for a record."""
        return self.records if record and self.records is not None else (self.k1, self.b)


def idf(count: int, having: int) -> float:
    """FTS5's inverse document frequency of a word `having` of `count` documents have: ln((N -
    n + 0.5) / (n + 0.5)), and 1e-6 where that is not positive (a word in most documents)."""
    value = math.log((count - having + 0.5) / (having + 0.5)) if count else 0.0
    return value if value > 0 else 1e-6


def okapi(
    frequencies: Sequence[Mapping[int, Sequence[int]]],
    rarities: Sequence[float],
    lengths: Mapping[int, int],
    average: float,
    weights: Sequence[float],
    *,
    how: Saturation,
    records: Collection[int] = (),
) -> dict[int, float]:
    """BM25 (higher is better) of each document in `frequencies`, as FTS5 computes it: per
    query word (its documents' counts per column, and its idf in `rarities`), the counts
    weighted by column and summed, saturated by k1 against the document's whole length (all
    columns) over the `average` length; `records`: the documents that are records, which take
    how.records' k1 and b. A document with none of the words is absent."""
    scores: dict[int, float] = {}
    for counts, rarity in zip(frequencies, rarities, strict=True):
        for doc, columns in counts.items():
            weighted = sum(w * c for w, c in zip(weights, columns, strict=False))
            share = lengths.get(doc, 0) / average if average > 0 else 1.0
            k1, b = how.of(doc in records)
            norm = k1 * (1.0 - b + b * share)
            gain = rarity * weighted * (k1 + 1.0) / (weighted + norm) if weighted else 0.0
            scores[doc] = scores.get(doc, 0.0) + gain
    return scores
