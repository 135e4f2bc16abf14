"""The re-ranker's collected pools read back as features (rerank_fit collect writes them)."""

from __future__ import annotations

import json
from collections.abc import Container, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from memidx.search.relevance import Evidence
from memidx.search.reranker import NAMES, Signals, best_weighted, features

Floats = NDArray[np.float64]
Width = int | Sequence[int]  # the first N features, or (N, then further columns of NAMES)
EVERY = len(NAMES)


@dataclass(frozen=True, slots=True)
class Query:
    """One collected query: its pool's keys and features, and the judgments."""

    set: str
    keys: list[str]
    x: Floats
    relevant: set[str]
    gains: dict[str, int]


def load(
    folder: Path, splits: Container[str], sets: Sequence[str], top: int, width: Width = EVERY
) -> list[Query]:
    """The collected queries of `splits` in the files of `sets`, the features `width` names
    (columns() of it) of the first `top` documents of each."""
    chosen = columns(width)
    queries: list[Query] = []
    for path in sorted(folder.glob("rerank-*.jsonl")):
        if path.stem.removeprefix("rerank-") not in sets:
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row["split"] not in splits:
                continue
            docs = row["docs"][:top]
            signals = [Signals(d[1], d[2], d[3], Evidence(*d[4:])) for d in docs]
            best = best_weighted(signals)
            x = np.array(
                [[features(s, row["depth"], best=best)[c] for c in chosen] for s in signals],
                dtype=np.float64,
            ).reshape(len(signals), len(chosen))
            queries.append(
                Query(row["set"], [d[0] for d in docs], x, set(row["relevant"]), row["gains"])
            )
    return queries


def columns(width: Width) -> list[int]:
    """The features fitted: the first N of NAMES, or the first N then the columns named."""
    return list(range(width)) if isinstance(width, int) else [*range(width[0]), *width[1:]]
