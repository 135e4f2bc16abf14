"""Conversation turns ranked with their session's context (pure, no numpy).

A question about a conversation is often answered across two or three turns: its words and its
meaning are spread over them, so the turn that holds the answer may match less of the question
than a neighbour does. Among the fused candidates, turns are re-ordered by a logistic model
over the evidence of the turn itself (as in relevance.py) and of the turns of its session just
before and after it, plus whether the question names the turn's speaker. Notes keep their
places: only the slots that turns hold are re-filled, so a search without turns is unchanged.
The coefficients were fitted on LoCoMo's dev conversations only by `python -m
tests.benchmark.turn_fit` and are pasted here with the figures it printed; README, "Ranking".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from memidx.search.relevance import logistic

K = TypeVar("K")


@dataclass(frozen=True, slots=True)
class TurnEvidence:
    """What one query knows about one turn and its neighbours (each 0 when absent)."""

    cosine: float  # the turn's best chunk's cosine
    bm25: float  # the turn's BM25 against the query's words, any of them (OR)
    top_bm25: float  # the best such BM25 among the candidates and their neighbours
    coverage: float  # share of the query's words the turn has
    near_cosine: float  # the best cosine of the neighbouring turns
    near_bm25: float  # the best BM25 of the neighbouring turns
    near_coverage: float  # the best coverage of the neighbouring turns
    speaker_named: bool  # the query names the turn's speaker (its agent)


# Fitted by `python -m tests.benchmark.turn_fit` on LoCoMo's 5 dev conversations only (786
# questions, 26,010 candidate turns; 2026-12-01). Among the turns, any@5 0.644 -> 0.718 and
# MRR@10 0.477 -> 0.567 in sample; each dev conversation ranked by the other four's fit:
# any@5 0.573 -> 0.660, 0.664 -> 0.730, 0.702 -> 0.787, 0.620 -> 0.693, 0.647 -> 0.705.
# The neighbours' cosine and coverage weigh negative beside their BM25: they overlap it.
# bias, cosine, bm25/top, log1p(bm25), coverage, near cosine, near bm25/top, near coverage,
# speaker named
WEIGHTS = (-10.336, 3.542, 2.574, 0.369, 3.057, -0.494, 2.395, -1.825, 1.601)


def features(evidence: TurnEvidence) -> tuple[float, ...]:
    """The model's inputs, without the bias."""
    top = evidence.top_bm25
    return (
        evidence.cosine,
        evidence.bm25 / top if top > 0 else 0.0,
        math.log1p(max(evidence.bm25, 0.0)),
        evidence.coverage,
        evidence.near_cosine,
        evidence.near_bm25 / top if top > 0 else 0.0,
        evidence.near_coverage,
        float(evidence.speaker_named),
    )


def turn_relevance(evidence: TurnEvidence, weights: Sequence[float] = WEIGHTS) -> float:
    """The probability that the turn answers the query, in its session's context."""
    values = features(evidence)
    return logistic(weights[0] + sum(w * x for w, x in zip(weights[1:], values, strict=True)))


def reorder_turns(
    fused: Sequence[tuple[K, float]], scores: Mapping[K, float]
) -> list[tuple[K, float]]:
    """The fused ranking with the keys that have a score (the turns) re-ordered among the
    places they hold, best score first (ties keep the fused order); the others stay put."""
    places = [i for i, (key, _) in enumerate(fused) if key in scores]
    turns = sorted((fused[i] for i in places), key=lambda pair: -scores[pair[0]])
    found = list(fused)
    for place, pair in zip(places, turns, strict=True):
        found[place] = pair
    return found
