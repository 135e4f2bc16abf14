"""Fit the learned re-ranker of memidx/search/reranker.py (numpy, offline).

    python -m tests.benchmark.rerank_fit collect --sets til,golden   # each query's fused pool
    python -m tests.benchmark.rerank_fit fit                          # dev only: the weights
    python -m tests.benchmark.rerank_fit check --split dev            # MRR@10 etc. of the pools

`--embedder SLUG` collects the pools over a candidate embedding model's vectors
(tests/benchmark/embedder_candidates.py; keep them apart with `--out`), and `check` then scores
its refitted weights (tests/benchmark/refits.py).

`collect` runs every answered query of every split in hybrid and keeps the fused top POOL with
each document's signals and judgment (one JSON line per query); `--sets nfcorpus-train` keeps
NFCorpus' train split (2,590 queries) in a file of its own. `--candidate NAME` collects the pools
of a ranking candidate's lists (candidates.py: its words' query grown by RM3, its BM25 constants
or coverage bonus), for a re-ranker refitted on them (keep them apart with `--out`); one that
changes anything else of the lists (its mode, fusion, depth, fields) is refused.
`fit` is a pairwise logistic regression on feature differences of (relevant, non-relevant)
documents of the same query in the pools of the fitted sets (dev splits, and the train split
where a set names it): each query weighs the same within its set, each set the same; L2 on
standardised features; `--features 7` (the default) fits the shipped model's, 9 `rerank 9
features`', `7,9` `rerank idf share`'s (rank_loss.py fits by losses aimed at the top). `check`
scores the fused and the learned order of the pools; the ranking bench is the real figure.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from statistics import mean

import numpy as np

from memidx.search.lexical import Hit
from memidx.search.reranker import FINER, NAMES, TOP, WEIGHTS, Learned, Pool, Signals
from memidx.search.searcher import DEPTH, Searcher
from tests.benchmark.candidates import CANDIDATES, Candidate
from tests.benchmark.embedder_candidates import index_of
from tests.benchmark.judged import BUILDERS, JudgedSet, beir_train_set
from tests.benchmark.metrics import mrr_at_k, ndcg_at_k
from tests.benchmark.pool_file import Floats, Query, columns, load
from tests.benchmark.refits import COMMITTED, REFITS
from tests.benchmark.workspace import PROJECT

POOL = 2 * DEPTH  # the most a default hybrid search fuses (20 by words, 20 by meaning)
FIT_SETS = ("golden", "til", "nfcorpus", "locomo")
FIT_SPLITS = ("dev", "train")  # of the sets fitted on; NFCorpus' train split: `nfcorpus-train`
SETS = BUILDERS | {"nfcorpus-train": beir_train_set}


@dataclass(slots=True)
class Recorder:
    """An Order that keeps each pool and leaves the fused order alone."""

    top: int = POOL
    pools: list[Pool] = field(default_factory=list[Pool])

    def order(self, pool: Pool) -> list[int]:
        self.pools.append(pool)
        return list(pool.docs)


HELD = ("bonus", "saturation", "expansion")  # what collect's searcher takes of a candidate
REFITTED = ("reranker", "cross")  # what the pools are for: the order they would give is not used


def unheld(candidate: Candidate) -> list[str]:
    """The fields in which `candidate` differs from the default and collect would not apply."""
    plain = Candidate()
    return [
        f.name
        for f in fields(Candidate)
        if f.name not in HELD + REFITTED and getattr(candidate, f.name) != getattr(plain, f.name)
    ]


def collect(
    judged: JudgedSet,
    out: Path,
    depth: int = DEPTH,
    slug: str = "",
    lists: Candidate | None = None,
) -> int:
    """One JSON line per answered query: set, split, relevant and gains, and its pool (the
    fused lists of `lists`, a ranking candidate, when given: its re-ranker is not used)."""
    index = index_of(judged.root, slug)
    store = index.store
    recorder = Recorder(2 * depth)
    how = lists or Candidate()
    searcher = Searcher(
        store, index.config, depth=depth, bonus=how.bonus, saturation=how.saturation,
        expansion=how.expansion, reranker=recorder, _embedder=index.embedder,
    )  # fmt: skip
    count = 0
    with out.open("w", encoding="utf-8") as lines:
        for query in judged.queries:
            if not query.relevant:
                continue
            searcher.search(query.text, query.filters, 10, "hybrid")
            pool = recorder.pools.pop()
            rows = store.rows(list(pool.docs))
            keys = [
                judged.key(Hit(0, r.source_kind, r.source_ref, r.title, 0.0, "", 0, meta=r.meta))
                for r in (rows[d] for d in pool.docs)
            ]
            row = {
                "set": judged.name,
                "split": query.split,
                "relevant": sorted(query.relevant),
                "gains": query.gains(),
                "depth": pool.depth,
                "docs": [signal_row(key, s) for key, s in zip(keys, pool.signals, strict=True)],
            }
            lines.write(json.dumps(row) + "\n")
            count += 1
    return count


def signal_row(key: str, s: Signals) -> list[object]:
    e = s.evidence
    return [
        key, s.fused_rank, s.bm25_rank, s.vector_rank,
        e.cosine, e.bm25, e.top_bm25, e.coverage, e.second_cosine, e.weighted_coverage,
    ]  # fmt: skip


def pairs(queries: Sequence[Query]) -> tuple[Floats, Floats]:
    """Feature differences (relevant - non-relevant) of each query's pairs, and their weights:
    every query the same mass within its set, every set the same."""
    diffs: list[Floats] = []
    weights: list[Floats] = []
    per_set = {q.set: sum(1 for p in queries if p.set == q.set) for q in queries}
    for q in queries:
        label = np.array([k in q.relevant for k in q.keys])
        good, bad = q.x[label], q.x[~label]
        if not len(good) or not len(bad):
            continue
        d = (good[:, None, :] - bad[None, :, :]).reshape(-1, q.x.shape[1])
        diffs.append(d)
        weights.append(np.full(len(d), 1.0 / (len(d) * per_set[q.set] * len(per_set))))
    return np.concatenate(diffs or [np.empty((0, 0))]), np.concatenate(weights or [np.empty(0)])


def fit_pairwise(d: Floats, w: Floats, l2: float) -> Floats:
    """Logistic regression without bias on pair differences (Newton), L2 on standardised
    features; returns weights for the raw features."""
    scale: Floats = np.asarray(d.std(axis=0), dtype=np.float64)
    scale[scale == 0] = 1.0
    z: Floats = d / scale
    w = w / w.sum()
    beta = np.zeros(d.shape[1], dtype=np.float64)
    penalty = np.full(z.shape[1], l2)
    for _ in range(100):
        step = newton_step(z, w, penalty, beta)
        beta = beta - step
        if np.max(np.abs(step)) < 1e-10:
            break
    return beta / scale


def newton_step(z: Floats, w: Floats, penalty: Floats, beta: Floats) -> Floats:
    """One Newton step of the weighted, penalised pairwise logistic loss."""
    p = 1.0 / (1.0 + np.exp(-(z @ beta)))
    gradient = z.T @ (w * (p - 1.0)) + penalty * beta
    hessian = (z * (w * p * (1 - p))[:, None]).T @ z + np.diag(penalty)
    return np.asarray(np.linalg.solve(hessian, gradient), dtype=np.float64)


def figures(queries: Sequence[Query], weights: Floats | None) -> tuple[float, float, float]:
    """recall@5, MRR@10 and nDCG@10 of the pools, fused (None) or in the learned order."""
    r5: list[float] = []
    mrr: list[float] = []
    ndcg: list[float] = []
    for q in queries:
        order = list(range(len(q.keys)))
        if weights is not None:
            s = q.x @ weights
            order.sort(key=lambda i: (-s[i], i))
        ranked = [q.keys[i] for i in order]
        r5.append(len(q.relevant & set(ranked[:5])) / len(q.relevant))
        mrr.append(mrr_at_k(ranked, q.relevant))
        ndcg.append(ndcg_at_k(ranked, q.gains))
    return mean(r5), mean(mrr), mean(ndcg)


def report(folder: Path, split: str, weights: Floats, top: int) -> None:
    print(f"{'set':<10}{'queries':>8}   fused r@5/MRR/nDCG     learned r@5/MRR/nDCG")
    for name in BUILDERS:
        queries = load(folder, {split}, [name], top)
        if queries:
            base, mine = figures(queries, None), figures(queries, weights)
            print(
                f"{name:<10}{len(queries):>8}   "
                + "/".join(f"{v:.3f}" for v in base)
                + "    "
                + "/".join(f"{v:.3f}" for v in mine)
            )


def feature_columns(text: str) -> list[int]:
    """--features: comma-separated column numbers of NAMES (argparse names a bad one)."""
    return [int(c) for c in text.split(",")]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmark.rerank_fit")
    parser.add_argument("step", choices=("collect", "fit", "check"))
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--work", type=Path, default=PROJECT / ".memidx" / "bench")
    parser.add_argument("--out", type=Path, default=None, help="where the pools are kept")
    parser.add_argument("--sets", default=",".join(SETS), help="the sets to collect")
    parser.add_argument("--fit-sets", default=",".join(FIT_SETS))
    parser.add_argument("--top", type=int, default=TOP)
    parser.add_argument("--l2", type=float, default=1e-3)
    parser.add_argument(
        "--features", type=feature_columns, default=[FINER],
        help="fit: the first N of NAMES, then any columns named after a comma (`7,9`: the 7"
        " and `weighted coverage / best`); the rest weigh 0",
    )  # fmt: skip
    parser.add_argument("--split", default="dev")
    parser.add_argument("--depth", type=int, default=DEPTH, help="collect: each list's depth")
    parser.add_argument("--embedder", default="", help="a candidate embedding model's slug")
    parser.add_argument("--candidate", default="", help="collect: a ranking candidate's lists")
    args = parser.parse_args(argv)
    out: Path = args.out or args.work
    if args.candidate and args.candidate not in CANDIDATES:
        parser.error(f"--candidate: no ranking candidate {args.candidate!r} (candidates.py)")
    if args.candidate and (ignored := unheld(CANDIDATES[args.candidate])):
        parser.error(
            f"--candidate: {args.candidate!r} changes {', '.join(ignored)}, which collect does"
            f" not apply (it applies {', '.join(HELD)}): name one that changes only those"
        )
    if args.step == "collect":
        lists = CANDIDATES[args.candidate] if args.candidate else None
        for name in args.sets.split(","):
            judged = SETS[name](args.work, args.data)
            count = collect(judged, out / f"rerank-{name}.jsonl", args.depth, args.embedder, lists)
            print(f"{name}: {count} answered queries", flush=True)
        return 0
    splits = FIT_SPLITS if args.step == "fit" else (args.split,)
    sets = args.fit_sets.split(",") if args.step == "fit" else list(BUILDERS)
    chosen: list[int] = args.features if args.step == "fit" else [len(NAMES)]
    queries = load(out, splits, sets, args.top, chosen)
    if not queries or (args.step == "fit" and not len(pairs(queries)[0])):  # numpy's traceback
        parser.error(
            f"--out {out}: no {'/'.join(splits)} pools of {','.join(sets)} to use there (run"
            " `python -m tests.benchmark.rerank_fit collect --out` to that folder first)"
        )
    if args.step == "fit":
        d, w = pairs(queries)
        fitted = fit_pairwise(d, w, args.l2)
        weights = np.zeros(len(NAMES))
        weights[columns(chosen)] = fitted
        print(f"{len(queries)} dev and train queries, {len(d)} pairs; top {args.top}, l2 {args.l2}")
        print("WEIGHTS = (" + ", ".join(f"{b:.3f}" for b in weights) + ")")
    elif args.embedder:
        weights = np.array(REFITS.get(args.embedder, COMMITTED).reranker)
        print(f"the weights refitted for {args.embedder} (refits.py; {Learned().top} deep)")
    else:
        weights = np.array(WEIGHTS)
        print(f"the weights of reranker.py ({Learned().top} deep)")
    report(out, args.split, weights, args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
