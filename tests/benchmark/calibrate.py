"""Fit and check the relevance model of memidx/search/relevance.py (numpy, offline).

    python -m tests.benchmark.calibrate collect   # run the judged sets, keep each hit's evidence
    python -m tests.benchmark.calibrate fit       # fit on the dev splits; print the constants
    python -m tests.benchmark.calibrate check     # Brier score and reliability on the test splits

Every hit in the top 10 of every query is one example, labeled by the judgments. Each fitted
set weighs the same in the fit. `--embedder SLUG` collects over a candidate embedding model's
vectors, ranked by its refitted models (tests/benchmark/refits.py), and `check` scores its
refitted weights; `--out` keeps its hits apart from the workspace's.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from memidx.search import relevance as model
from memidx.search.relevance import Evidence
from memidx.search.searcher import Searcher
from tests.benchmark.embedder_candidates import index_of
from tests.benchmark.judged import BUILDERS, JudgedSet
from tests.benchmark.lab import has_vectors
from tests.benchmark.refits import COMMITTED, REFITS, refitted
from tests.benchmark.workspace import PROJECT

Floats = NDArray[np.float64]
ENGINES = {"hybrid": "with vectors", "bm25": "words only"}
DEPTH = 10
# Fitted on the sets that look like agents' memory (notes, turns); BEIR NFCorpus (medical
# abstracts, most judged hits relevant) is checked as a set from elsewhere, not fitted on.
# LoCoMo's vectors were not ready when the model with vectors was fitted: it is held out whole.
FIT_SETS = {"hybrid": ("golden", "til"), "bm25": ("golden", "til", "locomo")}


def collect(judged: JudgedSet, out: Path, slug: str = "") -> int:
    """One JSON line per hit: set, split, engine, rank, label and evidence."""
    index = index_of(judged.root, slug)
    searcher = Searcher(index.store, index.config, _embedder=index.embedder)
    engines = [e for e in ENGINES if e == "bm25" or has_vectors(searcher)]
    count = 0
    with out.open("w", encoding="utf-8") as lines:
        for query in judged.queries:
            for engine in engines:
                for hit in searcher.search(query.text, query.filters, DEPTH, engine).hits:
                    e = hit.evidence
                    assert e is not None
                    row = {
                        "set": judged.name,
                        "split": query.split,
                        "engine": engine,
                        "rank": hit.rank,
                        "label": int(judged.key(hit) in query.relevant),
                        "evidence": [e.cosine, e.bm25, e.top_bm25, e.coverage],
                    }
                    lines.write(json.dumps(row) + "\n")
                    count += 1
    return count


def load(
    folder: Path, split: str, engine: str, sets: Sequence[str] = ()
) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for path in sorted(folder.glob("calibration-*.jsonl")):
        if sets and path.stem.removeprefix("calibration-") not in sets:
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row["split"] == split and row["engine"] == engine:
                rows.append(row)
    return rows


def design(rows: Sequence[dict[str, object]], engine: str) -> tuple[Floats, Floats, Floats]:
    """Features (with a leading 1), labels, and weights that give every set the same mass."""
    x: list[tuple[float, ...]] = []
    for row in rows:
        cosine, bm25, top, coverage = row["evidence"]  # type: ignore[misc]
        if engine == "bm25":
            cosine = None
        x.append((1.0, *model.features(Evidence(cosine, bm25, top, coverage))))  # type: ignore[arg-type]
    y = np.array([float(row["label"]) for row in rows])  # type: ignore[arg-type]
    sets = [str(row["set"]) for row in rows]
    sizes = {s: sets.count(s) for s in set(sets)}
    w = np.array([len(rows) / (len(sizes) * sizes[s]) for s in sets])
    return np.array(x, dtype=np.float64), y, w


def fit_logistic(x: Floats, y: Floats, w: Floats, l2: float = 1e-2) -> Floats:
    """Weighted L2-regularised logistic regression by Newton's method (the bias is not
    penalised)."""
    beta = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(x @ beta)))
        gradient = x.T @ (w * (p - y)) + penalty * beta
        hessian = (x * (w * p * (1 - p))[:, None]).T @ x + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.max(np.abs(step)) < 1e-9:
            break
    return beta


def brier(p: Floats, y: Floats) -> float:
    return float(np.mean((p - y) ** 2))


def ece(p: Floats, y: Floats, bins: int = 10) -> float:
    """Expected calibration error: |mean prediction - observed rate| per bin, weighted."""
    which = np.minimum((p * bins).astype(int), bins - 1)
    total = 0.0
    for b in range(bins):
        inside = which == b
        if inside.any():
            total += inside.sum() * abs(p[inside].mean() - y[inside].mean())
    return total / len(p)


def reliability(p: Floats, y: Floats, bins: int = 5) -> str:
    which = np.minimum((p * bins).astype(int), bins - 1)
    cells: list[str] = []
    for b in range(bins):
        inside = which == b
        if inside.any():
            cells.append(f"{p[inside].mean():.2f}->{y[inside].mean():.2f} (n={inside.sum()})")
    return "; ".join(cells)


def rank_only(rows: Sequence[dict[str, object]]) -> Floats:
    """The baseline a rank-only score (RRF) allows: a logistic on 1/rank."""
    return np.array([(1.0, 1.0 / float(r["rank"])) for r in rows])  # type: ignore[arg-type]


def fit(folder: Path, sets: Sequence[str]) -> None:
    for engine, what in ENGINES.items():
        rows = load(folder, "dev", engine, sets or FIT_SETS[engine])
        x, y, w = design(rows, engine)
        beta = fit_logistic(x, y, w)
        print(f"{what} ({engine}, {len(rows)} dev hits, {int(y.sum())} relevant):")
        print("  (" + ", ".join(f"{b:.3f}" for b in beta) + ")")


def check(folder: Path, sets: Sequence[str], with_vectors: Sequence[float]) -> None:
    print(
        f"{'engine':<8}{'set':<10}{'hits':>6}{'rate':>6}  {'Brier':>6} {'const':>6} "
        f"{'rank':>6}  {'ECE':>6}  reliability (predicted->observed)"
    )
    for engine in ENGINES:
        dev = load(folder, "dev", engine, sets or FIT_SETS[engine])
        test = load(folder, "test", engine)
        _, ydev, wdev = design(dev, engine)
        prior = float(np.sum(wdev * ydev) / np.sum(wdev))
        rank_beta = fit_logistic(rank_only(dev), ydev, wdev)
        weights = with_vectors if engine == "hybrid" else model.WORDS_ONLY
        for name in [*sorted({str(r["set"]) for r in test}), "all"]:
            rows = [r for r in test if name in ("all", r["set"])]
            x, y, _ = design(rows, engine)
            p = 1.0 / (1.0 + np.exp(-(x @ np.array(weights))))
            ranked = 1.0 / (1.0 + np.exp(-(rank_only(rows) @ rank_beta)))
            print(
                f"{engine:<8}{name:<10}{len(rows):>6}{y.mean():>6.3f}  {brier(p, y):>6.4f} "
                f"{brier(np.full_like(y, prior), y):>6.4f} {brier(ranked, y):>6.4f}  "
                f"{ece(p, y):>6.4f}  {reliability(p, y)}"
            )
    print("Brier: the model; const: the dev base rate for every hit; rank: a logistic on 1/rank")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmark.calibrate")
    parser.add_argument("step", choices=("collect", "fit", "check"))
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--work", type=Path, default=PROJECT / ".memidx" / "bench")
    parser.add_argument("--sets", default=",".join(BUILDERS), help="the sets to collect")
    parser.add_argument("--out", type=Path, default=None, help="where the hits are kept")
    parser.add_argument("--embedder", default="", help="a candidate embedding model's slug")
    parser.add_argument(
        "--fit-sets",
        default="",
        help="the sets whose dev splits are fitted on (and give `const` its base rate); "
        "default: FIT_SETS",
    )
    args = parser.parse_args(argv)
    out: Path = args.out or args.work
    refit = REFITS.get(args.embedder, COMMITTED)
    if args.step == "collect":
        for name in args.sets.split(","):
            judged = BUILDERS[name](args.work, args.data)
            with refitted(refit):
                count = collect(judged, out / f"calibration-{name}.jsonl", args.embedder)
            print(f"{name}: {len(judged.queries)} queries, {count} hits", flush=True)
    elif args.step == "fit":
        fit(out, [s for s in args.fit_sets.split(",") if s])
    else:
        check(out, [s for s in args.fit_sets.split(",") if s], refit.relevance)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
