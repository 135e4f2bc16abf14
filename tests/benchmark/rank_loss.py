"""Fits of the learned re-ranker that aim at the top of the list (numpy, offline).

    python -m tests.benchmark.rank_loss cv --out P                 # dev only: choose the fit
    python -m tests.benchmark.rank_loss fit --out P --loss listnet  # dev only: the weights

The pairwise fit of rerank_fit counts every (relevant, non-relevant) pair of a query alike,
wherever the two sit: a pair at places 25 and 30 weighs as much as one at 1 and 2, and the fit
trades a first place for many swaps deep in the pool, which MRR@10 never sees. Two losses here
weigh the top instead, on the same features and the same pools (rerank_fit collect):

- `listnet`: a softmax over each query's pool (ListNet's top-one probabilities): the loss is
  the cross-entropy between it and the judgments spread evenly over the relevant documents, so
  a relevant document gains most by standing above all the others at once;
- `lambda-mrr`, `lambda-ndcg`: the pairwise logistic loss with each pair weighing what swapping
  the two would change MRR@10 or nDCG@10 in the order of the model of the round before
  (LambdaRank's |delta|), refitted `rounds` times from the pairwise fit, each round's weights
  halfway between the last and the refit (a full step swings between two orders).

Every query weighs the same within its set and every set the same, as in the pairwise fit; L2
on standardised features. `cv` chooses the loss, L2, depth and rounds by five-fold
cross-validation over the dev queries (each fold fitted on the other four), never on test.
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Sequence
from pathlib import Path
from statistics import mean

import numpy as np

from memidx.search.reranker import FINER, NAMES, TOP
from tests.benchmark.rerank_fit import FIT_SETS, Floats, Query, figures, fit_pairwise, load
from tests.benchmark.rerank_fit import pairs as even_pairs
from tests.benchmark.workspace import PROJECT

LOSSES = ("pairwise", "listnet", "lambda-mrr", "lambda-ndcg")
CUT = 10  # MRR@10 and nDCG@10


def set_mass(queries: Sequence[Query]) -> list[float]:
    """Each query's weight: every query the same within its set, every set the same."""
    per_set = {q.set: sum(1 for p in queries if p.set == q.set) for q in queries}
    return [1.0 / (per_set[q.set] * len(per_set)) for q in queries]


def labels(q: Query) -> Floats:
    """1.0 for each of the pool's relevant documents, else 0.0."""
    return np.array([k in q.relevant for k in q.keys], dtype=np.float64)


def fit_listnet(queries: Sequence[Query], l2: float) -> Floats:
    """Weights minimising each pool's softmax cross-entropy against its judgments (Newton with
    halving steps; the loss is convex), L2 on standardised features; for the raw features."""
    kept = [q for q in queries if 0 < labels(q).sum() < len(q.keys)]
    mass = set_mass(kept)
    total = sum(mass)
    stacked = np.concatenate([q.x for q in kept])
    scale: Floats = np.asarray(stacked.std(axis=0), dtype=np.float64)
    scale[scale == 0] = 1.0
    zs = [q.x / scale for q in kept]
    targets = [labels(q) / labels(q).sum() for q in kept]
    weights = [m / total for m in mass]
    beta = np.zeros(stacked.shape[1], dtype=np.float64)

    def loss(b: Floats) -> float:
        value = 0.5 * l2 * float(b @ b)
        for z, t, w in zip(zs, targets, weights, strict=True):
            s = z @ b
            top = float(s.max())
            value += w * (top + float(np.log(np.exp(s - top).sum())) - float(t @ s))
        return value

    for _ in range(100):
        gradient = l2 * beta
        hessian = l2 * np.eye(len(beta))
        for z, t, w in zip(zs, targets, weights, strict=True):
            s = z @ beta
            p = np.exp(s - s.max())
            p = p / p.sum()
            gradient = gradient + w * (z.T @ (p - t))
            zp = z.T @ p
            hessian = hessian + w * ((z * p[:, None]).T @ z - np.outer(zp, zp))
        step = np.asarray(np.linalg.solve(hessian, gradient), dtype=np.float64)
        before, size = loss(beta), 1.0
        while size > 1e-6 and loss(beta - size * step) > before:
            size /= 2
        beta = beta - size * step
        if np.max(np.abs(size * step)) < 1e-10:
            break
    return beta / scale


def swap_costs(q: Query, scores: Floats, metric: str) -> Floats:
    """|change of MRR@10 or nDCG@10| of swapping each (relevant, non-relevant) pair of the
    pool in the order `scores` gives (ties in the fused order), relevant-major."""
    order = sorted(range(len(q.keys)), key=lambda i: (-scores[i], i))
    place = np.empty(len(order), dtype=np.float64)
    place[order] = np.arange(1, len(order) + 1)
    label = labels(q).astype(bool)
    good, bad = place[label], place[~label]
    if metric == "mrr":
        first = good.min()
        others = np.array([np.delete(good, i).min(initial=np.inf) for i in range(len(good))])
        moved = np.minimum(others[:, None], bad[None, :])
        return np.abs(reciprocal(moved) - reciprocal(np.array(first)))
    gain = np.array([q.gains.get(k, 0) for k in q.keys], dtype=np.float64)
    ideal = np.sort(np.array([g for g in q.gains.values() if g > 0], dtype=np.float64))[::-1]
    idcg = float((ideal[:CUT] / np.log2(np.arange(2, min(len(ideal), CUT) + 2))).sum())
    g, b = gain[label], gain[~label]
    change = np.abs(g[:, None] - b[None, :]) * np.abs(discount(good)[:, None] - discount(bad))
    return change / idcg if idcg else change


def reciprocal(place: Floats) -> Floats:
    """1 / place within the cut, else 0."""
    return np.where(place <= CUT, 1.0 / place, 0.0)


def discount(place: Floats) -> Floats:
    """nDCG's 1 / log2(place + 1) within the cut, else 0."""
    return np.where(place <= CUT, 1.0 / np.log2(place + 1), 0.0)


def fit_lambda(queries: Sequence[Query], l2: float, metric: str, rounds: int) -> Floats:
    """The pairwise fit, then `rounds` refits with each pair weighing its swap's cost."""
    d, w = even_pairs(queries)
    beta = fit_pairwise(d, w, l2)
    kept = [q for q in queries if 0 < labels(q).sum() < len(q.keys)]
    mass = set_mass(kept)
    for _ in range(rounds):
        diffs: list[Floats] = []
        costs: list[Floats] = []
        for q, m in zip(kept, mass, strict=True):
            label = labels(q).astype(bool)
            good, bad = q.x[label], q.x[~label]
            cost = swap_costs(q, q.x @ beta, metric).reshape(-1)
            diffs.append((good[:, None, :] - bad[None, :, :]).reshape(-1, q.x.shape[1]))
            costs.append(cost * m)
        weight = np.concatenate(costs)
        if not weight.sum():
            break
        beta = (beta + fit_pairwise(np.concatenate(diffs), weight, l2)) / 2  # damped: no swing
    return beta


def fit(queries: Sequence[Query], loss: str, l2: float, rounds: int = 3) -> Floats:
    """The weights of `loss` (LOSSES) over `queries`."""
    if loss == "listnet":
        return fit_listnet(queries, l2)
    if loss.startswith("lambda-"):
        return fit_lambda(queries, l2, loss.removeprefix("lambda-"), rounds)
    d, w = even_pairs(queries)
    return fit_pairwise(d, w, l2)


def folds(queries: Sequence[Query], count: int = 5) -> list[list[int]]:
    """`count` folds of the queries' indices, every set spread evenly over them."""
    chosen: list[list[int]] = [[] for _ in range(count)]
    for name in sorted({q.set for q in queries}):
        mine = [i for i, q in enumerate(queries) if q.set == name]
        for n, i in enumerate(mine):
            chosen[n % count].append(i)
    return chosen


def cross_validated(
    folder: Path, sets: Sequence[str], top: int, *, loss: str, l2: float, rounds: int
) -> dict[str, tuple[float, float, float]]:
    """Per set, recall@5 / MRR@10 / nDCG@10 of each dev query's pool (the fused top `top`)
    in the order of weights fitted on the other folds (scored on the top 30 as shipped)."""
    fitted = load(folder, {"dev"}, sets, top, FINER)
    scored = load(folder, {"dev"}, sets, TOP, FINER)
    rows: dict[str, list[tuple[float, float, float]]] = {}
    for held in folds(fitted):
        inside = set(held)
        weights = fit([q for i, q in enumerate(fitted) if i not in inside], loss, l2, rounds)
        for i in held:
            rows.setdefault(scored[i].set, []).append(figures([scored[i]], weights))
    return {s: (mean(r[0] for r in v), mean(r[1] for r in v), mean(r[2] for r in v))
            for s, v in rows.items()}  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmark.rank_loss")
    parser.add_argument("step", choices=("cv", "fit"))
    parser.add_argument("--out", type=Path, default=PROJECT / ".memidx" / "bench")
    parser.add_argument("--fit-sets", default=",".join(FIT_SETS))
    parser.add_argument("--loss", choices=LOSSES, default="listnet")
    parser.add_argument("--losses", default=",".join(LOSSES), help="cv: the losses to try")
    parser.add_argument("--l2", default="1e-3", help="cv: comma-separated values")
    parser.add_argument("--top", default=str(TOP), help="cv: comma-separated depths")
    parser.add_argument("--rounds", default="3", help="lambda: refits (cv: comma-separated)")
    args = parser.parse_args(argv)
    sets = args.fit_sets.split(",")
    if not load(args.out, {"dev"}, sets, TOP, FINER):
        parser.error(
            f"--out {args.out}: no dev pools of {args.fit_sets} there (run `python -m"
            " tests.benchmark.rerank_fit collect --out` to that folder first)"
        )
    if args.step == "fit":
        queries = load(args.out, {"dev"}, sets, int(args.top), FINER)
        weights = fit(queries, args.loss, float(args.l2), int(args.rounds))
        weights = np.concatenate([weights, np.zeros(len(NAMES) - len(weights))])
        print(f"{len(queries)} dev queries; {args.loss}, top {args.top}, l2 {args.l2}")
        print("WEIGHTS = (" + ", ".join(f"{b:.3f}" for b in weights) + ")")
        return 0
    grid = itertools.product(
        args.losses.split(","),
        [int(t) for t in args.top.split(",")],
        [float(v) for v in args.l2.split(",")],
        [int(r) for r in args.rounds.split(",")],
    )
    for loss, top, l2, rounds in grid:
        if rounds != int(args.rounds.split(",")[0]) and not loss.startswith("lambda-"):
            continue
        got = cross_validated(args.out, sets, top, loss=loss, l2=l2, rounds=rounds)
        cells = "  ".join(f"{s} " + "/".join(f"{v:.3f}" for v in got[s]) for s in sorted(got))
        print(f"{loss:<12}top {top:<3}l2 {l2:<7g}rounds {rounds}  {cells}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
