"""The retrieval sets, the three modes side by side: the golden set, BEIR NFCorpus and LoCoMo,
each with whether fusion beats its parts and a sweep of fusion's depth and weights."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from memidx.index.store import Filters
from memidx.search.fusion import Fusion
from memidx.search.searcher import DEPTH, Searcher
from tests.benchmark import beir, locomo, turns
from tests.benchmark.golden import Scores, copy_notes, queries, score
from tests.benchmark.timing import ms, percentile
from tests.benchmark.workspace import (
    beir_repo,
    embed_once,
    locomo_repo,
    memidx,
    missing,
    open_searcher,
    repo,
    tree_stamp,
)


def golden(args: argparse.Namespace) -> None:
    """The golden set (71 notes, 44 developer queries), three modes side by side."""
    root, _ = repo(args.work, "golden", tree_stamp(Path(__file__).parent / "golden"), copy_notes)
    memidx(root, "ingest", quiet=True)
    if "vector" in args.modes:
        memidx(root, "embed", quiet=True)
    searcher = open_searcher(root)
    mains: dict[str, tuple[float, ...]] = {}
    print(f"{'mode':<8} {'recall@5':>9} {'MRR@10':>7} {'empty':>6} {'p50':>7} {'p95':>7}")
    for mode in args.modes:
        latencies: list[float] = []

        def search(text: str, mode: str = mode, latencies: list[float] = latencies) -> list[str]:
            start = time.perf_counter()
            hits = searcher.search(text, Filters(), 10, mode).hits
            latencies.append(time.perf_counter() - start)
            return [h.ref for h in hits]

        result = score(queries(), search)
        for _ in range(args.rounds - 1):
            for q in queries():
                search(q.text)
        print(
            f"{mode:<8} {result.recall_at_5:>9.3f} {result.mrr:>7.3f} {result.empty:>6} "
            f"{ms(percentile(latencies, 50)):>7} {ms(percentile(latencies, 95)):>7}"
        )
        for text, top in result.misses:
            print(f"   {mode} miss: {text!r} -> {', '.join(top) or 'nothing'}")
        mains[mode] = (result.recall_at_5, result.mrr)
    print(f"({len(queries())} queries, in-process latency over {args.rounds} rounds)")
    if "hybrid" in mains:
        _verdict(mains, "recall@5, MRR@10")
        _sweep(
            "recall@5, MRR@10",
            lambda s: _pair(
                score(
                    queries(), lambda t: [h.ref for h in s.search(t, Filters(), 10, "hybrid").hits]
                )
            ),
            root,
        )


def beir_section(args: argparse.Namespace) -> None:
    """BEIR NFCorpus test split: nDCG@10, recall@10, MRR@10 for the three modes."""
    if missing(args, "beir-nfcorpus"):
        return
    root = beir_repo(args.work, args.data)
    embed_once(root, args)
    searcher = open_searcher(root)
    print(f"{'mode':<8} {'nDCG@10':>8} {'R@10':>7} {'MRR@10':>7}   (323 test queries)")
    mains: dict[str, tuple[float, ...]] = {}
    for mode in args.modes:
        result = beir.evaluate(searcher, args.data, mode)
        mains[mode] = (result.ndcg,)
        print(f"{mode:<8} {result.ndcg:>8.4f} {result.recall:>7.4f} {result.mrr:>7.4f}")
    for name, value in beir.REFERENCES.items():
        print(f"  reference nDCG@10 {value:.3f}: {name}")
    if "hybrid" in mains:
        _verdict(mains, "nDCG@10")
        _sweep("nDCG@10", lambda s: (beir.evaluate(s, args.data, "hybrid").ndcg,), root)


def locomo_section(args: argparse.Namespace) -> None:
    """LoCoMo: recall of evidence turns and sessions, per category, three modes."""
    if missing(args, "locomo"):
        return
    dataset = locomo.load(args.data)
    root = locomo_repo(args.work, args.data, dataset)
    embed_once(root, args)
    searcher = open_searcher(root)
    ids = turns.dia_ids(root)
    print(
        f"{len(dataset.turns)} turns, {len(dataset.questions)} questions of categories 1-4 with "
        f"evidence ({dataset.without_evidence} without); {dataset.references} evidence references,"
        f" {len(dataset.repaired)} repaired, {len(dataset.unusable)} unusable"
    )
    for item in dataset.repaired:
        print(f"  repaired: {item}")
    for item in dataset.unusable:
        print(f"  unusable: {item}")
    groups = ["1", "2", "3", "4", "all"]
    results: dict[str, dict[str, dict[str, float]]] = {}
    for mode in args.modes:
        results[mode] = locomo.evaluate(
            dataset, lambda q, mode=mode: turns.search(searcher, ids, q, mode)
        )
    header = f"{'metric':<16}{'mode':<8}" + "".join(
        f"{(locomo.CATEGORIES[int(g)] if g != 'all' else 'all'):>12}" for g in groups
    )
    print(header)
    counts = results[args.modes[0]]
    print(f"{'questions':<24}" + "".join(f"{int(counts[g]['count']):>12}" for g in groups))
    for metric in locomo.METRICS:
        for mode in args.modes:
            row = results[mode]
            print(f"{metric:<16}{mode:<8}" + "".join(f"{row[g][metric]:>12.3f}" for g in groups))
    for name, value in locomo.REFERENCES.items():
        print(f"  reference {value:.3f}: {name}")
    if "hybrid" in results:
        keys = ("turn_any@5", "turn_any@10")
        _verdict({m: tuple(r["all"][k] for k in keys) for m, r in results.items()}, ", ".join(keys))

        def measure(s: Searcher) -> tuple[float, ...]:
            found = locomo.evaluate(dataset, lambda q: turns.search(s, ids, q, "hybrid"))["all"]
            return tuple(found[k] for k in keys)

        _sweep(", ".join(keys), measure, root)


SWEEP = ((10, (1.0, 1.0)), (20, (1.0, 1.0)), (50, (1.0, 1.0)), (20, (2.0, 1.0)), (20, (1.0, 2.0)))


def _pair(result: Scores) -> tuple[float, ...]:
    return (result.recall_at_5, result.mrr)


def _verdict(mains: dict[str, tuple[float, ...]], metric: str) -> None:
    """Say whether fusion beats each of its parts on the set's main metric."""
    hybrid = list(mains["hybrid"])
    for part in ("bm25", "vector"):
        other = list(mains.get(part, ()))
        if not other:
            continue
        if other[0] > hybrid[0]:
            print(
                f"  fusion loses to {part} on {metric.split(',', maxsplit=1)[0]}: "
                f"{hybrid[0]:.4f} < {other[0]:.4f}"
            )
        elif len(hybrid) > 1 and other[1] > hybrid[1]:
            print(
                f"  fusion loses to {part} on {metric.split(', ')[1]}: "
                f"{hybrid[1]:.4f} < {other[1]:.4f}"
            )


def _sweep(metric: str, measure: Callable[[Searcher], tuple[float, ...]], root: Path) -> None:
    """Hybrid under other candidate depths and RRF weights (bm25 weight, vector weight)."""
    print(f"  fusion sweep ({metric}; default depth {DEPTH}, weights 1/1, k=60):")
    for depth, weights in SWEEP:
        searcher = open_searcher(root)
        searcher.depth, searcher.fusion = depth, Fusion(weights=weights)
        values = " ".join(f"{v:.4f}" for v in measure(searcher))
        print(f"    depth {depth:>3} weights {weights[0]:g}/{weights[1]:g}: {values}")
