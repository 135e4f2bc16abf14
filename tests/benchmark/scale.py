"""Scale: ingest throughput, index size and cold BM25 search on the TIL notes (1x and 10x), and
cold hybrid search on the ~19k-note corpus with where its time goes."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from statistics import median

from tests.benchmark import corpus
from tests.benchmark.timing import ms, percentile, timed_process
from tests.benchmark.workspace import (
    PROJECT,
    embed_once,
    memidx,
    missing,
    recorded,
    repo,
    tree_stamp,
)
from tests.helpers import MEMIDX_BIN


def scale(args: argparse.Namespace) -> None:
    """Ingest throughput, index size and cold BM25 search on the TIL notes, 1x and 10x."""
    if missing(args, "til-jbranchaud"):
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
    if missing(args, "til-jbranchaud") or "hybrid" not in args.modes:
        return
    stamp = tree_stamp(args.data / "til-jbranchaud") + "x10"
    root, _ = repo(args.work, "til-x10", stamp, lambda r: corpus.write_til(r, args.data, 10))
    memidx(root, "ingest", quiet=True)
    embed_once(root, args)
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
