"""MiniLM and bge-small fused in one ranking (two_dense.py) against each alone (issue 17).

    python -m tests.benchmark.two_bench run --sets til,golden --split dev   # the rows below
    python -m tests.benchmark.two_bench collect --sets til,golden,nfcorpus,locomo  # dev pools
    python -m tests.benchmark.two_bench fit --width 9          # dev only: LEARNED_FORM's weights

`run` ranks each answered query of one split four ways over the same workspace (BENCH_BGE_DIR
names bge's files, bge_small.py; its vectors in the workspace's candidate copy, made and
embedded by the ranking bench's `BENCH_EMBEDDERS=bge-small-int8`): memidx's hybrid (MiniLM),
bge's hybrid with its refitted models (refits.py), `two-dense rrf` (BM25, MiniLM's and bge's
lists in RRF under memidx's own re-ranker and turn-context model) and `two-dense learned` (the
re-ranker with bge's cosine and rank as features, LEARNED_FORM, or `--weights`). Each query is
embedded once per model beforehand; a row's p50 adds the embeddings it needs (both for the
two-dense rows). Each row's difference from memidx's hybrid gets a paired bootstrap interval
over the queries (10,000 draws). `--every N` keeps every N-th answered query.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memidx.config import load_config
from memidx.index.store import open_store
from memidx.search.lexical import Hit
from memidx.search.searcher import Searcher
from tests.benchmark.embedder_candidates import EMBEDDERS, candidate_searcher
from tests.benchmark.judged import BUILDERS, Judged, JudgedSet
from tests.benchmark.metrics import mrr_at_k, ndcg_at_k, recall_at_k
from tests.benchmark.ranking import HEADER, Figures, QueryVectors, sample
from tests.benchmark.refits import REFITS, refitted
from tests.benchmark.rerank_fit import Query, fit_pairwise, pairs
from tests.benchmark.rerank_fit import figures as pool_figures
from tests.benchmark.two_dense import (
    FUSED_ORDER,
    LEARNED_FORM,
    RRF_FORM,
    WIDTH,
    Recorded,
    TwoDense,
)
from tests.benchmark.two_dense import same_documents as check_same
from tests.benchmark.workspace import PROJECT

BGE = "bge-small-int8"
Rank = Callable[[Judged], Sequence[Hit]]  # one query's hits, its query vectors embedded already
METRICS = ("MRR@10", "nDCG@10", "recall@5", "any@5")


@dataclass(slots=True)
class Two:
    """One workspace opened for the four rows: memidx's index, bge's copy, both models."""

    judged: JudgedSet
    mini: Searcher
    bge: Searcher
    mini_q: QueryVectors
    bge_q: QueryVectors

    def embed(self, queries: Sequence[Judged]) -> None:
        for q in queries:
            self.mini_q.embed_query(q.text)
            self.bge_q.embed_query(q.text)

    def two(self, weights: tuple[float, ...], pools: list[Recorded] | None = None) -> TwoDense:
        return TwoDense(
            self.mini.store, self.mini.vectors(), self.bge.vectors(), weights, pools=pools
        )

    def two_rank(self, dense: TwoDense) -> Rank:
        def rank(q: Judged) -> list[Hit]:
            vectors = self.mini_q.embed_query(q.text), self.bge_q.embed_query(q.text)
            return dense.search(q.text, q.filters, 10, *vectors)

        return rank


def open_two(judged: JudgedSet) -> Two:
    root = judged.root
    store, _ = open_store(root / ".memidx" / "index.sqlite", write=False)
    config = load_config(root)
    base = Searcher(store, config)
    mini_q = QueryVectors(base.embedder())
    mini = Searcher(store, config, _embedder=mini_q, _vectors=base.vectors())
    embedded = candidate_searcher(root, BGE, EMBEDDERS[BGE]()).searcher
    check_same(config.index_path, embedded.config.index_path)
    bge_q = QueryVectors(embedded.embedder())
    bge = Searcher(embedded.store, embedded.config, _embedder=bge_q, _vectors=embedded.vectors())
    return Two(judged, mini, bge, mini_q, bge_q)


def per_query(judged: JudgedSet, queries: Sequence[Judged], rank: Rank) -> np.ndarray:
    """Per query: MRR@10, nDCG@10, recall@5, any@5, the search's seconds and recall@10."""
    rows: list[list[float]] = []
    for q in queries:
        start = time.perf_counter()
        ranked = [judged.key(h) for h in rank(q)]
        took = time.perf_counter() - start
        top = q.relevant & set(ranked[:5])
        rows.append(
            [
                mrr_at_k(ranked, set(q.relevant)),
                ndcg_at_k(ranked, q.gains()),
                len(top) / len(q.relevant),
                float(bool(top)),
                took,
                recall_at_k(ranked, set(q.relevant)),
            ]
        )
    return np.asarray(rows, dtype=np.float64)


def bootstrap(diff: np.ndarray, draws: int = 10_000, seed: int = 17) -> tuple[float, float]:
    """The 95 % interval of the mean of `diff` over queries drawn with replacement."""
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(diff), size=(draws, len(diff)))
    low, high = np.percentile(diff[picks].mean(axis=1), [2.5, 97.5])
    return float(low), float(high)


def hybrid(searcher: Searcher) -> Rank:
    """A searcher's hybrid hits of a query."""

    def rank(q: Judged) -> Sequence[Hit]:
        return searcher.search(q.text, q.filters, 10, "hybrid").hits

    return rank


def run(args: argparse.Namespace) -> None:
    weights = tuple(json.loads(args.weights)) if args.weights else LEARNED_FORM
    for name in args.sets.split(","):
        judged = BUILDERS[name](args.work, args.data)
        queries = sample(judged, args.split, args.every)
        results = rows(judged, queries, weights, args.forms.split(","))
        report(f"{name} {args.split}", results)
        if args.out:
            keep = {row: values.tolist() for row, values in results.items()}
            (args.out / f"two-{name}-{args.split}.json").write_text(json.dumps(keep))


def rows(
    judged: JudgedSet, queries: Sequence[Judged], weights: tuple[float, ...], forms: Sequence[str]
) -> dict[str, np.ndarray]:
    """The four rows' per-query figures, each p50 with the embeddings its row needs."""
    two = open_two(judged)
    two.embed(queries)
    mini_s = np.array([two.mini_q.seen[q.text][1] for q in queries])
    bge_s = np.array([two.bge_q.seen[q.text][1] for q in queries])
    results = {"MiniLM hybrid": per_query(judged, queries, hybrid(two.mini))}
    with refitted(REFITS[BGE]):  # its re-ranker takes the refit's weights when made
        searcher = Searcher(
            two.bge.store, two.bge.config, _embedder=two.bge_q, _vectors=two.bge.vectors()
        )
        results["bge refit"] = per_query(judged, queries, hybrid(searcher))
    results["MiniLM hybrid"][:, 4] += mini_s
    results["bge refit"][:, 4] += bge_s
    for form in forms:
        dense = two.two({"rrf": RRF_FORM, "learned": weights, "fused": FUSED_ORDER}[form])
        results[f"two-dense {form}"] = per_query(judged, queries, two.two_rank(dense))
        results[f"two-dense {form}"][:, 4] += mini_s + bge_s
    return results


def report(title: str, results: dict[str, np.ndarray]) -> None:
    base = results["MiniLM hybrid"]
    print(f"\n{title}: {len(base)} queries; p50 adds the row's query embeddings")
    print(HEADER)
    for row, v in results.items():
        m = v.mean(axis=0)
        figures = Figures(m[2], m[3], m[0], m[1], float(np.median(v[:, 4])), len(v), m[5])
        print(figures.row(row), flush=True)
    for row, v in results.items():
        if row == "MiniLM hybrid":
            continue
        parts: list[str] = []
        for i, metric in enumerate(METRICS):
            diff = v[:, i] - base[:, i]
            low, high = bootstrap(diff)
            better, worse = int((diff > 1e-9).sum()), int((diff < -1e-9).sum())
            parts.append(f"{metric} {diff.mean():+.3f} [{low:+.3f}, {high:+.3f}] {better}/{worse}")
        print(f"  {row} - MiniLM: " + "; ".join(parts), flush=True)


def collect(args: argparse.Namespace) -> None:
    """Each answered dev query's two-dense pool (the RRF form's order), one JSON line each."""
    for name in args.sets.split(","):
        judged = BUILDERS[name](args.work, args.data)
        two = open_two(judged)
        pools: list[Recorded] = []
        rank = two.two_rank(two.two(RRF_FORM, pools))
        count = 0
        with (args.out / f"two-pools-{name}.jsonl").open("w", encoding="utf-8") as lines:
            for q in sample(judged, args.split, 1):
                rank(q)
                pool = pools.pop()
                found = two.mini.store.rows(list(pool.docs))
                keys = [
                    judged.key(
                        Hit(0, r.source_kind, r.source_ref, r.title, 0.0, "", 0, meta=r.meta)
                    )
                    for r in (found[d] for d in pool.docs)
                ]
                row = {"set": name, "relevant": sorted(q.relevant), "gains": q.gains()}
                lines.write(json.dumps(row | {"keys": keys, "x": pool.x}) + "\n")
                count += 1
        print(f"{name}: {count} pools", flush=True)


def load_pools(folder: Path, sets: Sequence[str], columns: Sequence[int]) -> list[Query]:
    queries: list[Query] = []
    for name in sets:
        for line in (folder / f"two-pools-{name}.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            x = np.asarray(row["x"], dtype=np.float64).reshape(-1, WIDTH)[:, list(columns)]
            queries.append(Query(name, row["keys"], x, set(row["relevant"]), row["gains"]))
    return queries


def fit(args: argparse.Namespace) -> None:
    """Weights on every set's dev pools; 5-fold cross-validation over the queries beside."""
    columns = list(range(args.width))  # the first N of the shipped features and bge's
    sets = args.sets.split(",")
    queries = load_pools(args.out, sets, columns)
    d, w = pairs(queries)
    fitted = fit_pairwise(d, w, args.l2)
    full = np.zeros(WIDTH)
    full[columns] = fitted
    print(f"{len(queries)} dev queries, {len(d)} pairs; l2 {args.l2}; columns {columns}")
    print("WEIGHTS = (" + ", ".join(f"{b:.3f}" for b in full) + ")")
    rrf = np.asarray(RRF_FORM)[columns]
    print(f"{'set':<10} rrf form r@5/MRR/nDCG   fitted in-sample      5-fold")
    for name in sets:
        mine = [q for q in queries if q.set == name]
        cv = cross_validated(queries, name, args.l2)
        cells = [pool_figures(mine, rrf), pool_figures(mine, fitted), cv]
        print(f"{name:<10} " + "   ".join("/".join(f"{v:.3f}" for v in c) for c in cells))


def cross_validated(queries: Sequence[Query], name: str, l2: float) -> tuple[float, ...]:
    """`name`'s pool figures, each fifth of every set's queries ranked by a fit on the rest."""
    folds = [i % 5 for i in range(len(queries))]
    scored: list[tuple[float, float, float]] = []
    for fold in range(5):
        train = [q for q, f in zip(queries, folds, strict=True) if f != fold]
        held = [q for q, f in zip(queries, folds, strict=True) if f == fold and q.set == name]
        if held:
            weights = fit_pairwise(*pairs(train), l2)
            scored += [pool_figures([q], weights) for q in held]
    return tuple(float(v) for v in np.mean(scored, axis=0))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmark.two_bench")
    parser.add_argument("step", choices=("run", "collect", "fit"))
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--work", type=Path, default=PROJECT / ".memidx" / "bench")
    parser.add_argument("--out", type=Path, default=None, help="pools and per-query figures")
    parser.add_argument("--sets", default="golden,til,nfcorpus,locomo")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--every", type=int, default=1)
    parser.add_argument("--forms", default="rrf,learned", help="run: rrf, learned, fused")
    parser.add_argument("--weights", default="", help="run: the learned form's, as a JSON list")
    parser.add_argument("--width", type=int, default=WIDTH, help="fit: 7, 8 (bge cosine), 9")
    parser.add_argument("--l2", type=float, default=1e-3)
    args = parser.parse_args(argv)
    args.out = args.out or args.work
    {"run": run, "collect": collect, "fit": fit}[args.step](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
