"""memidx's fitted models refitted on a candidate embedding model's features (bench only).

The learned re-ranker (memidx/search/reranker.py), the turn-context model (context.py) and the
relevance model (relevance.py) were fitted on all-MiniLM-L6-v2's cosines; a candidate model's
cosines run on another scale, so a fair comparison runs it with the three refitted on its own
dev features by the same code (`rerank_fit`, `turn_fit`, `calibrate`, each with `--embedder`),
and its recall gate with thresholds chosen for its cosines on the tuning side of `recall_held`
(`--fit-gate`). `refitted` swaps the weights in for as long as it runs, without any change to
memidx: the three models take their weights as default arguments, whatever module calls them.
"""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FunctionType
from typing import Any, cast

from memidx.agents.gate import GATE, Gate, Thresholds
from memidx.search import context, relevance, reranker


@dataclass(frozen=True, slots=True)
class Refit:
    """The weights of memidx's fitted models for one candidate embedding model."""

    reranker: tuple[float, ...] = reranker.WEIGHTS
    turns: tuple[float, ...] = context.WEIGHTS
    relevance: tuple[float, ...] = relevance.WITH_VECTORS
    gate: Gate = GATE


COMMITTED = Refit()  # MiniLM's, as memidx ships them


def gate_of(note: Thresholds, turn: Thresholds) -> Gate:
    """A gate with these thresholds; exchanges an agent filed are gated as notes (gate.py)."""
    return Gate(note=note, turn=turn, exchange=note)


# all-mpnet-base-v2 int8 (embedder_candidates.MpnetEmbedder), fitted 2026-12-02 on the dev
# splits only, by the same code and sets as memidx's own (which that code reproduces for MiniLM:
# the re-ranker's within 0.005 a weight, the turn context's exactly); README, "Ranking
# candidates". Re-ranker: golden, TIL, NFCorpus (whole) and LoCoMo dev pools (1,236 queries,
# 51,610 pairs), its 7 features as memidx's (the last two weigh 0 there too). Turn context:
# LoCoMo's 5 dev conversations (786 questions, 26,268 candidate turns).
# Relevance (with vectors): golden and TIL dev hits, ranked by the refitted re-ranker (2,380).
# Gate: `recall_held --embedder mpnet-int8 --fit-gate --sides tune` (gate_fit.py), the most
# right hits per kind at no more negatives injected than MiniLM's committed gate on that side.
REFITS: dict[str, Refit] = {
    "mpnet-int8": Refit(
        reranker=(-0.555, -0.333, 0.059, 8.258, 0.233, 2.664, -0.768, 0.0, 0.0, 0.0),
        turns=(-10.270, 3.334, 2.919, -0.056, 2.955, 1.758, 2.063, -1.953, 1.976),
        relevance=(-12.602, 13.405, 11.749, -3.055, 2.683),
        gate=gate_of(
            Thresholds(cosine=0.70, cosine_with_words=0.60, word_share=0.40),
            Thresholds(cosine=0.56, cosine_with_words=0.28, word_share=0.50, known=0.75),
        ),
    ),
    # bge-small-en-v1.5 int8 (bge_small.BgeSmallEmbedder), fitted 2026-12-05 on the dev splits
    # only, as mpnet's above. Re-ranker: golden, TIL, NFCorpus (whole) and LoCoMo dev pools
    # (1,236 queries, 49,969 pairs). Turn context: LoCoMo's 5 dev conversations (786 questions,
    # 25,620 candidate turns). Relevance and the gate stay MiniLM's (no recall_held run).
    "bge-small-int8": Refit(
        reranker=(-0.495, -0.304, 0.051, 16.579, 0.318, 2.472, -0.879, 0.0, 0.0, 0.0),
        turns=(-12.574, 4.355, 2.720, 0.201, 3.212, 1.961, 2.062, -1.769, 1.986),
    ),
}


# The functions whose default arguments hold the models' weights.
LEARNED = cast(FunctionType, reranker.Learned.__init__)  # (top, weights)
TURNS = cast(FunctionType, context.turn_relevance)  # (weights,)
RELEVANCE = cast(FunctionType, relevance.relevance)  # (with vectors, words only)


@contextmanager
def refitted(refit: Refit) -> Generator[None]:
    """memidx's re-ranker, turn-context and relevance models with `refit`'s weights inside."""
    saved: dict[FunctionType, tuple[Any, ...]] = {
        f: f.__defaults__ or () for f in (LEARNED, TURNS, RELEVANCE)
    }
    swapped = {
        LEARNED: (saved[LEARNED][0], refit.reranker),
        TURNS: (refit.turns,),
        RELEVANCE: (refit.relevance, saved[RELEVANCE][1]),
    }
    try:
        for function, values in swapped.items():
            function.__defaults__ = values
        yield
    finally:
        for function, values in saved.items():
            function.__defaults__ = values
