"""One cross-encoder candidate against hybrid, query by query (issue 17): MRR@10, nDCG@10,
recall@5 and any@5 of both, a paired bootstrap interval on the MRR@10 difference, and what the
cross-encoder cost per query (its own time, each pair scored fresh: nothing kept between
queries), with the load average.

BENCH_CE_DIR=... BENCH_CE_THREADS=1 .venv-dev/bin/python -m tests.benchmark.ce_report \
    --work W --data ../shared/data --sets til,nfcorpus,locomo --split test --candidate ce-rerank
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import mean

import numpy as np

from tests.benchmark.candidates import CANDIDATES, Candidate
from tests.benchmark.cross_encoder import CrossEncoder, CrossOrder
from tests.benchmark.judged import BUILDERS, Judged, JudgedSet
from tests.benchmark.lab import Lab, lab_of
from tests.benchmark.metrics import mrr_at_k, ndcg_at_k
from tests.benchmark.ranking import every_of, sample
from tests.benchmark.timing import percentile


@dataclass(frozen=True, slots=True)
class PerQuery:
    mrr: list[float]
    ndcg: list[float]
    recall5: list[float]
    any5: list[float]
    seconds: list[float]  # the cross-encoder's time per query (empty without it)
    cpu: list[float]  # and the CPU time it took, all threads together

    def row(self, name: str) -> str:
        figures = [mean(x) for x in (self.recall5, self.any5, self.mrr, self.ndcg)]
        return f"{name:<14}" + "".join(f"{x:>9.3f}" for x in figures)


def run_queries(judged: JudgedSet, queries: Sequence[Judged], lab: Lab, c: Candidate) -> PerQuery:
    searcher = lab.searcher(c)
    order = searcher.reranker if isinstance(searcher.reranker, CrossOrder) else None
    found = PerQuery([], [], [], [], [], [])
    for query in queries:
        if order is not None:
            order.query = query.text
        hits = searcher.search(query.text, query.filters, 10, c.mode).hits
        if order is not None and isinstance(order.scorer, CrossEncoder):
            found.seconds.append(sum(t for t, _ in order.scorer.timings))
            found.cpu.append(sum(order.scorer.cpu))
            order.scorer.timings.clear()
            order.scorer.cpu.clear()
            order.scorer.kept.clear()  # each query pays for its own pairs
        ranked = [judged.key(h) for h in hits]
        top = set(ranked[:5])
        found.mrr.append(mrr_at_k(ranked, set(query.relevant)))
        found.ndcg.append(ndcg_at_k(ranked, query.gains()))
        found.recall5.append(len(query.relevant & top) / len(query.relevant))
        found.any5.append(float(bool(query.relevant & top)))
    return found


def interval(base: Sequence[float], other: Sequence[float], rounds: int = 5000) -> str:
    """The mean difference other - base and its paired bootstrap 95 % interval."""
    diff = np.asarray(other) - np.asarray(base)
    draws = np.random.default_rng(17).integers(0, len(diff), (rounds, len(diff)))
    means = diff[draws].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return f"{diff.mean():+.3f} [{low:+.3f}, {high:+.3f}]"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def report(judged: JudgedSet, split: str, name: str, every: int) -> None:
    lab = lab_of(judged.root)
    queries = sample(judged, split, every)
    print(f"\n{judged.name} {split}: {len(queries)} queries; load average {load()}")
    print(f"{'':<14}{'recall@5':>9}{'any@5':>9}{'MRR@10':>9}{'nDCG@10':>9}")
    hybrid = run_queries(judged, queries, lab, Candidate())
    print(hybrid.row("hybrid"), flush=True)
    found = run_queries(judged, queries, lab, CANDIDATES[name])
    print(found.row(name))
    print(f"MRR@10 {name} - hybrid: {interval(hybrid.mrr, found.mrr)} (paired bootstrap)")
    print(f"recall@5 difference: {interval(hybrid.recall5, found.recall5)}")
    ms, cpu = [s * 1000 for s in found.seconds], [s * 1000 for s in found.cpu]
    threads = os.environ.get("BENCH_CE_THREADS", "1")
    print(
        f"cross-encoder per query ({threads} thread(s)): p50 {percentile(ms, 50):.0f} ms,"
        f" p95 {percentile(ms, 95):.0f} ms (CPU p50 {percentile(cpu, 50):.0f} ms,"
        f" p95 {percentile(cpu, 95):.0f} ms); load average {load()}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ce_report")
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--sets", default="til,nfcorpus,locomo")
    parser.add_argument("--split", default="dev", choices=("dev", "test"))
    parser.add_argument("--candidate", default="ce-rerank", choices=sorted(CANDIDATES))
    parser.add_argument("--every", default="", help="set:n keeps every n-th query of a set")
    args = parser.parse_args(argv)
    every = every_of(args.every)
    for name in args.sets.split(","):
        report(BUILDERS[name](args.work, args.data), args.split, args.candidate, every.get(name, 1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
