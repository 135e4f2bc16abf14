"""Fit the turn-context model of memidx/search/context.py on LoCoMo's dev conversations only.

    python -m tests.benchmark.turn_fit --data /work/shared/data --work /work/cache/x

Each turn among the fused candidates of each dev question (as the searcher fuses them before
re-ordering) is one example, labeled by the question's evidence; every question weighs the
same. Prints the coefficients to paste into context.py and, as a check that the model holds on
questions it was not fitted on, each dev conversation ranked by a model fitted on the others
(the test conversations are for `make bench ONLY=ranking BENCH_SPLIT=test` alone).
`--embedder SLUG` fits over a candidate embedding model's vectors (embedder_candidates.py).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from memidx.index.store import Store
from memidx.search.context import features
from memidx.search.fusion import Fusion, fuse_rankings
from memidx.search.lexical import rank_lexical
from memidx.search.query import query_terms
from memidx.search.searcher import DEPTH, Searcher
from memidx.search.turn_context import POOL, turn_evidence
from tests.benchmark.calibrate import fit_logistic
from tests.benchmark.embedder_candidates import index_of
from tests.benchmark.judged import locomo_set
from tests.benchmark.turns import dia_ids
from tests.benchmark.workspace import PROJECT

Floats = NDArray[np.float64]
L2 = 1.0  # ridge on the coefficients (not the bias)


@dataclass(frozen=True, slots=True)
class Question:
    conversation: str
    fused: list[int]  # fused order of the candidates that are turns
    x: Floats  # their features, one row each
    y: Floats  # 1 for an evidence turn


def collect(data: Path, work: Path, slug: str = "") -> list[Question]:
    judged = locomo_set(work, data)
    index = index_of(judged.root, slug)
    store = index.store
    searcher = Searcher(store, index.config, _embedder=index.embedder)
    vectors, embedder = searcher.vectors(), searcher.embedder()
    ids = _keys(store, judged.root)
    found: list[Question] = []
    for query in judged.split("dev"):
        terms = query_terms(query.text)
        vector = embedder.embed_query(query.text)
        words = rank_lexical(store, query.text, query.filters, DEPTH)
        semantic = vectors.rank(vector, DEPTH, store.allowed(query.filters))
        by_words = [(r.id, r.score) for r in words.rows]
        fused = fuse_rankings(by_words, [(d, c) for d, c, _ in semantic], Fusion())[:POOL]
        known = {d: c for d, c, _ in semantic}
        evidence = turn_evidence(
            store, vectors, vector, terms, [d for d, _ in fused], cosines=known
        )
        turns = [d for d, _ in fused if d in evidence]
        x = np.array([features(evidence[d]) for d in turns], dtype=np.float64)
        y = np.array([float(ids.get(d) in query.relevant) for d in turns])
        found.append(Question(query.filters.drawer or "", turns, x, y))
    return found


def _keys(store: Store, root: Path) -> dict[int, str]:
    """Row id to the judgments' `conversation:dia id` of every LoCoMo turn."""
    names = dia_ids(root)
    rows = store.conn.execute(
        "SELECT id, json_extract(meta, '$.drawer'), json_extract(meta, '$.id') FROM documents"
    )
    return {int(i): f"{d}:{names[str(r)]}" for i, d, r in rows if str(r) in names}


def fit(questions: list[Question]) -> Floats:
    """The coefficients (bias first) by calibrate's logistic regression; every question
    weighs the same."""
    asked = [q for q in questions if len(q.y)]
    x = np.vstack([np.hstack([np.ones((len(q.y), 1)), q.x]) for q in asked])
    y = np.concatenate([q.y for q in asked])
    w = np.concatenate([np.full(len(q.y), 1.0 / len(q.y)) for q in asked])
    return fit_logistic(x, y, w * len(y) / w.sum(), L2)


def any_at_5(questions: list[Question], beta: Floats | None) -> tuple[float, float]:
    """Share of questions with an evidence turn among the first 5 turns, and the mean
    reciprocal rank (top 10) of the first one: by `beta`, or in the fused order (None)."""
    found: list[float] = []
    ranks: list[float] = []
    for q in questions:
        order = np.arange(len(q.y))
        if beta is not None and len(q.y):
            order = np.argsort(-(beta[0] + q.x @ beta[1:]), kind="stable")
        labels = q.y[order][:10]
        found.append(float(labels[:5].any()))
        first = np.flatnonzero(labels)
        ranks.append(1.0 / (first[0] + 1) if first.size else 0.0)
    return float(np.mean(found)), float(np.mean(ranks))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="fit the turn-context model")
    parser.add_argument("--data", type=Path, default=PROJECT.parent / "shared" / "data")
    parser.add_argument("--work", type=Path, default=PROJECT / ".memidx" / "bench")
    parser.add_argument("--embedder", default="", help="a candidate embedding model's slug")
    args = parser.parse_args(argv)
    questions = collect(args.data, args.work, args.embedder)
    beta = fit(questions)
    print(f"{len(questions)} dev questions, {sum(len(q.y) for q in questions)} turns")
    print("WEIGHTS = (" + ", ".join(f"{b:.3f}" for b in beta) + ")")
    print("among the turns (any@5, MRR@10): fused", any_at_5(questions, None))
    for name in sorted({q.conversation for q in questions}):
        beta_out = fit([q for q in questions if q.conversation != name])
        mine = [q for q in questions if q.conversation == name]
        fitted, fused = any_at_5(mine, beta_out), any_at_5(mine, None)
        print(f"  {name} by the others' fit", fitted, "fused", fused)
    print("in-sample fit", any_at_5(questions, beta))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
