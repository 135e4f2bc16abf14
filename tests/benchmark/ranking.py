"""Ranking on every judged set (`make bench ONLY=ranking`): bm25, vector, hybrid and each
candidate side by side on one split, with in-process latency, and the relevance's calibration.

BENCH_SPLIT=dev (the default) is for tuning; BENCH_SPLIT=test only for the final figures.
BENCH_SETS picks sets (golden, til, nfcorpus, locomo; til-sample only when named);
BENCH_CANDIDATES picks candidates;
BENCH_EMBED=0 leaves a workspace's missing vectors alone (then it is compared by words only).
BENCH_EMBEDDERS adds candidate embedding models (tests/benchmark/embedder_candidates.py).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from statistics import mean

from memidx.config import load_config
from memidx.index.store import VectorStore, open_store
from memidx.search.searcher import Searcher
from tests.benchmark.judged import BUILDERS, OPTIONAL, SPLITS, JudgedSet
from tests.benchmark.metrics import mrr_at_k, ndcg_at_k
from tests.benchmark.timing import ms, percentile
from tests.benchmark.workspace import memidx

# A candidate: a name, the mode it searches in, and how it changes a fresh searcher.
Setup = Callable[[Searcher], object]
CANDIDATES: dict[str, tuple[str, Setup]] = {
    "convex 0.5": ("hybrid", lambda s: setattr(s, "fusion", "convex")),
    "convex 0.3": ("hybrid", lambda s: (setattr(s, "fusion", "convex"), setattr(s, "alpha", 0.3))),
    "rrf weights 1/2": ("hybrid", lambda s: setattr(s, "weights", (1.0, 2.0))),
    "rrf depth 10": ("hybrid", lambda s: setattr(s, "depth", 10)),
    "rrf depth 50": ("hybrid", lambda s: setattr(s, "depth", 50)),
    "rerank top 20 by rel.": ("hybrid", lambda s: setattr(s, "rerank", 20)),
    "rerank top 40 by rel.": ("hybrid", lambda s: setattr(s, "rerank", 40)),
}


@dataclass(frozen=True, slots=True)
class Figures:
    recall5: float  # macro share of the relevant found in the top 5
    any5: float  # share of queries with a relevant hit in the top 5 (LoCoMo's recall_any@5)
    mrr: float
    ndcg: float
    p50: float
    count: int

    def row(self, name: str) -> str:
        return (
            f"{name:<22}{self.recall5:>9.3f}{self.any5:>8.3f}{self.mrr:>8.3f}{self.ndcg:>9.3f}"
            f"{ms(self.p50):>9}"
        )


HEADER = f"{'':<22}{'recall@5':>9}{'any@5':>8}{'MRR@10':>8}{'nDCG@10':>9}{'p50':>9}"


def searcher_of(root: Path) -> Searcher:
    store, _ = open_store(root / ".memidx" / "index.sqlite", write=False)
    return Searcher(store, load_config(root))


def has_vectors(searcher: Searcher) -> bool:
    """Whether every chunk has a vector of the model (else the words alone are compared)."""
    vectors = VectorStore(searcher.store.conn)
    if vectors.model(searcher.config.model) is None:
        return False
    return not vectors.missing(searcher.config.model)


def evaluate(judged: JudgedSet, split: str, searcher: Searcher, mode: str) -> Figures:
    recall: list[float] = []
    found_any: list[float] = []
    mrr: list[float] = []
    ndcg: list[float] = []
    latencies: list[float] = []
    for query in judged.split(split):
        if not query.relevant:
            continue  # a query no note answers: it only calibrates the relevance
        start = time.perf_counter()
        hits = searcher.search(query.text, query.filters, 10, mode).hits
        latencies.append(time.perf_counter() - start)
        ranked = [judged.key(h) for h in hits]
        top = set(ranked[:5])
        recall.append(len(query.relevant & top) / len(query.relevant))
        found_any.append(float(bool(query.relevant & top)))
        mrr.append(mrr_at_k(ranked, set(query.relevant)))
        ndcg.append(ndcg_at_k(ranked, query.gains()))
    return Figures(
        mean(recall),
        mean(found_any),
        mean(mrr),
        mean(ndcg),
        percentile(latencies, 50),
        len(recall),
    )


def table(judged: JudgedSet, split: str, names: list[str]) -> None:
    base = searcher_of(judged.root)
    modes = ["bm25", "vector", "hybrid"] if has_vectors(base) else ["bm25"]
    queries = sum(1 for q in judged.split(split) if q.relevant)
    note = " (in-sample: memidx's settings were chosen on it)" if judged.name == "golden" else ""
    print(f"\n{judged.name} {split}: {queries} queries{note}")
    print(HEADER)
    for mode in modes:
        print(evaluate(judged, split, base, mode).row(mode), flush=True)
    for name in names:
        mode, setup = CANDIDATES[name]
        if mode not in modes:
            continue
        candidate = searcher_of(judged.root)
        setup(candidate)
        print(evaluate(judged, split, candidate, mode).row(name), flush=True)
    if "vector" in modes:
        embedder_rows(judged, split)


def embedder_rows(judged: JudgedSet, split: str) -> None:
    """vector and hybrid rows of each candidate embedding model in BENCH_EMBEDDERS."""
    from tests.benchmark.embedder_candidates import EMBEDDERS, candidate_searcher

    for slug in [e for e in os.environ.get("BENCH_EMBEDDERS", "").split(",") if e]:
        embedded = candidate_searcher(judged.root, slug, EMBEDDERS[slug]())
        print(f"  {slug}: {embedded.cost()}", flush=True)
        for mode in ("vector", "hybrid"):
            row = evaluate(judged, split, embedded.searcher, mode).row(f"{slug} {mode}")
            print(row, flush=True)


def run(args: argparse.Namespace) -> None:
    split = os.environ.get("BENCH_SPLIT", "dev")
    if split not in SPLITS:
        raise SystemExit(f"BENCH_SPLIT must be one of {', '.join(SPLITS)}")
    sets = [s for s in os.environ.get("BENCH_SETS", ",".join(BUILDERS)).split(",") if s]
    names = [c for c in os.environ.get("BENCH_CANDIDATES", ",".join(CANDIDATES)).split(",") if c]
    print(f"split {split}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for name in sets:
        judged = (BUILDERS | OPTIONAL)[name](args.work, args.data)
        if "vector" in args.modes and os.environ.get("BENCH_EMBED") != "0":
            memidx(judged.root, "embed", quiet=True)  # incremental: only what lacks vectors
        table(judged, split, names)
