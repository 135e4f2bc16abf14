"""Ranking on every judged set (`make bench ONLY=ranking`): bm25, vector, hybrid and each
candidate side by side on one split, with in-process latency; then one table per candidate
over every set, against the default of its mode, with a verdict.

BENCH_SPLIT=dev (the default) is for tuning; BENCH_SPLIT=test only for the final figures.
BENCH_SETS picks sets (golden, til, nfcorpus, locomo); BENCH_CANDIDATES picks candidates
(names as in tests/benchmark/candidates.py, comma-separated; `none` for the modes alone);
BENCH_EMBED=0 leaves a workspace's missing vectors alone (then it is compared by words only);
BENCH_EMBEDDERS adds candidate embedding models (tests/benchmark/embedder_candidates.py);
til-sample is a set only when named;
BENCH_EVERY=locomo:4 keeps every 4th answered query of a set (the same ones for all rows).

Each query is embedded once per set and run: every mode and candidate reuses the vector, and
its latency adds the time that first embedding took (the same for all of them), so the
figures differ by what the candidates do, not by the machine's load at that moment.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import mean

from memidx.embed.embedders import Vectors
from memidx.search.searcher import Searcher
from tests.benchmark.candidates import CANDIDATES, Candidate
from tests.benchmark.cross_encoder import CrossOrder
from tests.benchmark.judged import BUILDERS, OPTIONAL, SPLITS, Judged, JudgedSet
from tests.benchmark.lab import Lab, QueryVectors, has_vectors, lab_of, lexical_settings
from tests.benchmark.metrics import mrr_at_k, ndcg_at_k, recall_at_k
from tests.benchmark.timing import ms, percentile
from tests.benchmark.workspace import memidx

__all__ = [  # the lab's names too: the bench's scripts import them from here
    "HEADER",
    "Figures",
    "Lab",
    "QueryVectors",
    "adopted",
    "embedder_rows",
    "evaluate",
    "every_of",
    "has_vectors",
    "lab_of",
    "measure",
    "run",
    "sample",
    "summary",
    "table",
    "verdict",
]


@dataclass(frozen=True, slots=True)
class Figures:
    recall5: float  # macro share of the relevant found in the top 5
    any5: float  # share of queries with a relevant hit in the top 5 (LoCoMo's recall_any@5)
    mrr: float
    ndcg: float
    p50: float
    count: int
    recall10: float = 0.0  # macro share of the relevant found in the top 10 (NFCorpus' R@10)

    def row(self, name: str) -> str:
        return (
            f"{name:<22}{self.recall5:>9.3f}{self.any5:>8.3f}{self.mrr:>8.3f}{self.ndcg:>9.3f}"
            f"{self.recall10:>8.3f}{ms(self.p50):>9}"
        )


HEADER = f"{'':<22}{'recall@5':>9}{'any@5':>8}{'MRR@10':>8}{'nDCG@10':>9}{'R@10':>8}{'p50':>9}"


def verdict(default: Figures, candidate: Figures) -> str:
    """`wins` when MRR@10 is up and recall@5 not down against the default, else what lost."""
    if candidate.recall5 < default.recall5:
        return "loses recall@5"
    if candidate.mrr <= default.mrr:
        return "MRR@10 not up"
    return "wins"


def adopted(verdicts: Sequence[tuple[str, str]]) -> bool:
    """Whether a candidate wins on every set that was not tuned on (golden is in-sample)."""
    held_out = [v for name, v in verdicts if name != "golden"]
    return bool(held_out) and all(v == "wins" for v in held_out)


def sample(judged: JudgedSet, split: str, every: int = 1) -> list[Judged]:
    """The split's answered queries (the others only calibrate the relevance), every n-th."""
    return [q for q in judged.split(split) if q.relevant][::every]


def every_of(spec: str) -> dict[str, int]:
    """BENCH_EVERY's `set:n,set:n` as {set: n}."""
    pairs = [item.split(":", 1) for item in spec.split(",") if item]
    return {name: int(n) for name, n in pairs}


def evaluate(
    judged: JudgedSet, queries: Sequence[Judged], lab: Lab, candidate: Candidate
) -> Figures:
    seen = lab.queries.seen if lab.queries is not None else {}
    with lexical_settings(candidate):
        return measure(judged, queries, lab.searcher(candidate), candidate.mode, seen)


def measure(
    judged: JudgedSet,
    queries: Sequence[Judged],
    searcher: Searcher,
    mode: str,
    seen: dict[str, tuple[Vectors, float]],
) -> Figures:
    """The figures of one searcher in one mode; `seen`: query vectors embedded beforehand,
    with what embedding each cost (added to its latency)."""
    recall: list[float] = []
    recall10: list[float] = []
    found_any: list[float] = []
    mrr: list[float] = []
    ndcg: list[float] = []
    latencies: list[float] = []
    for query in queries:
        embedded = query.text in seen
        if isinstance(searcher.reranker, CrossOrder):
            searcher.reranker.query = query.text  # the cross-encoder reads it
        start = time.perf_counter()
        hits = searcher.search(query.text, query.filters, 10, mode).hits
        took = time.perf_counter() - start
        if embedded and mode != "bm25":
            took += seen[query.text][1]  # what embedding it cost the first time
        latencies.append(took)
        ranked = [judged.key(h) for h in hits]
        top = set(ranked[:5])
        recall.append(len(query.relevant & top) / len(query.relevant))
        recall10.append(recall_at_k(ranked, set(query.relevant)))
        found_any.append(float(bool(query.relevant & top)))
        mrr.append(mrr_at_k(ranked, set(query.relevant)))
        ndcg.append(ndcg_at_k(ranked, query.gains()))
    return Figures(
        mean(recall),
        mean(found_any),
        mean(mrr),
        mean(ndcg),
        percentile(latencies, 50),
        len(mrr),
        mean(recall10),
    )


def table(judged: JudgedSet, split: str, names: Sequence[str], every: int) -> dict[str, Figures]:
    """The set's table; returns the figures by mode and candidate name."""
    lab = lab_of(judged.root)
    modes = ["bm25", "vector", "hybrid"] if lab.vectors is not None else ["bm25"]
    queries = sample(judged, split, every)
    note = " (in-sample: memidx's settings were chosen on it)" if judged.name == "golden" else ""
    note += f" (one answered query in {every})" if every > 1 else ""
    print(f"\n{judged.name} {split}: {len(queries)} queries{note}")
    print(HEADER)
    found: dict[str, Figures] = {}
    for mode in modes:
        found[mode] = evaluate(judged, queries, lab, Candidate(mode))
        print(found[mode].row(mode), flush=True)
    for name in names:
        candidate = CANDIDATES[name]
        if candidate.mode in modes:
            found[name] = evaluate(judged, queries, lab, candidate)
            print(found[name].row(name), flush=True)
    if "vector" in modes:
        embedder_rows(judged, queries, found["hybrid"])
    return found


def embedder_rows(judged: JudgedSet, queries: Sequence[Judged], default: Figures) -> None:
    """vector and hybrid rows of each candidate embedding model in BENCH_EMBEDDERS; with its
    refitted models (refits.py), a `refit` row too, judged against memidx's hybrid."""
    from tests.benchmark.embedder_candidates import EMBEDDERS, candidate_searcher
    from tests.benchmark.refits import REFITS, refitted

    for slug in [e for e in os.environ.get("BENCH_EMBEDDERS", "").split(",") if e]:
        embedded = candidate_searcher(judged.root, slug, EMBEDDERS[slug]())
        print(f"  {slug}: {embedded.cost()}", flush=True)
        for mode in ("vector", "hybrid"):
            row = measure(judged, queries, embedded.searcher, mode, {}).row(f"{slug} {mode}")
            print(row, flush=True)
        if slug not in REFITS:
            continue
        base = embedded.searcher
        with refitted(REFITS[slug]):  # a new searcher: its re-ranker takes the refit's weights
            searcher = Searcher(
                base.store, base.config, _embedder=base.embedder(), _vectors=base.vectors()
            )
            found = measure(judged, queries, searcher, "hybrid", {})
        print(found.row(f"{slug} refit") + f"  {verdict(default, found)}", flush=True)


def summary(split: str, names: Sequence[str], results: dict[str, dict[str, Figures]]) -> None:
    """One table per candidate over every set: its default, itself, the verdict."""
    print(f"\n-- each candidate on every set ({split}; against the default of its mode) --")
    for name in names:
        mode = CANDIDATES[name].mode
        verdicts: list[tuple[str, str]] = []
        print(f"\n{name} ({mode})")
        print(HEADER)
        for set_name, found in results.items():
            if name not in found:
                print(f"{set_name}: not measured (no vectors)")
                continue
            verdicts.append((set_name, verdict(found[mode], found[name])))
            print(found[mode].row(f"{set_name} {mode}"))
            print(found[name].row(f"{set_name} candidate") + f"  {verdicts[-1][1]}")
        print("  wins on every held-out set" if adopted(verdicts) else "  no adoption")


def run(args: argparse.Namespace) -> None:
    split = os.environ.get("BENCH_SPLIT", "dev")
    if split not in SPLITS:
        raise SystemExit(f"BENCH_SPLIT must be one of {', '.join(SPLITS)}")
    sets = [s for s in os.environ.get("BENCH_SETS", ",".join(BUILDERS)).split(",") if s]
    chosen = os.environ.get("BENCH_CANDIDATES", ",".join(CANDIDATES))
    names = [c for c in chosen.split(",") if c and c != "none"]
    known = BUILDERS | OPTIONAL
    unknown = [n for n in [*names, *sets] if n not in CANDIDATES and n not in known]
    if unknown:
        raise SystemExit(f"unknown candidate or set {unknown[0]!r}")
    print(f"split {split}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    every = every_of(os.environ.get("BENCH_EVERY", ""))
    results: dict[str, dict[str, Figures]] = {}
    for name in sets:
        judged = known[name](args.work, args.data)
        if "vector" in args.modes and os.environ.get("BENCH_EMBED") != "0":
            memidx(judged.root, "embed", quiet=True)  # incremental: only what lacks vectors
        results[name] = table(judged, split, names, every.get(name, 1))
    summary(split, names, results)
    print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
