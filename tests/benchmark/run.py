"""The benchmark runner: each section prints its own figures; `--only` picks sections."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from statistics import median

from memidx.search import lexical_search
from memidx.store import Filters, open_store
from tests.benchmark import corpus
from tests.benchmark.golden import copy_notes, queries, score
from tests.benchmark.timing import ms, percentile, timed_process
from tests.helpers import MEMIDX_BIN, NotesRepo

Section = Callable[[argparse.Namespace, Path], None]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmark", description=__doc__)
    parser.add_argument(
        "--data",
        type=Path,
        default=Path("../shared/data"),
        help="the shared data folder (default ../shared/data)",
    )
    parser.add_argument(
        "--only", default="", help=f"comma-separated sections: {', '.join(SECTIONS)}"
    )
    parser.add_argument("--rounds", type=int, default=3, help="repetitions of each timing")
    args = parser.parse_args(argv)
    chosen = [s for s in args.only.split(",") if s] or list(SECTIONS)
    unknown = [s for s in chosen if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section {unknown[0]!r}; choose from {', '.join(SECTIONS)}")
    with tempfile.TemporaryDirectory(prefix="memidx-bench-") as scratch:
        for name in chosen:
            print(f"\n== {name} ==", flush=True)
            SECTIONS[name](args, Path(scratch) / name)
    return 0


def golden(args: argparse.Namespace, scratch: Path) -> None:
    """Recall of the golden set, BM25, searched in-process."""
    repo = NotesRepo(scratch / "memory")
    copy_notes(repo.root)
    repo.commit()
    repo.memidx("ingest")
    store, _ = open_store(repo.root / ".memidx" / "index.sqlite", write=False)
    latencies: list[float] = []

    def search(text: str) -> list[str]:
        start = time.perf_counter()
        hits = lexical_search(store, text, Filters(), 10).hits
        latencies.append(time.perf_counter() - start)
        return [h.ref for h in hits]

    result = score(queries(), search)
    for _ in range(args.rounds - 1):
        for q in queries():
            search(q.text)
    store.conn.close()
    print(
        f"queries {result.count}  bm25 recall@5 {result.recall_at_5:.3f}  MRR {result.mrr:.3f}  "
        f"empty {result.empty}  latency p50 {ms(percentile(latencies, 50))} "
        f"p95 {ms(percentile(latencies, 95))} (in-process)"
    )
    for text, top in result.misses:
        print(f"  miss: {text!r} -> {', '.join(top) or 'nothing'}")


def scale(args: argparse.Namespace, scratch: Path) -> None:
    """Ingest throughput, index size and cold BM25 search on the TIL notes, 1x and 10x."""
    if not (args.data / "til-jbranchaud").is_dir():
        print(f"skipped: no til-jbranchaud under {args.data}")
        return
    baseline = [timed_process([sys.executable, "-c", "pass"], scratch.parent)[0] for _ in range(10)]
    print(f"python startup baseline p50 {ms(median(baseline))}")
    for copies in (1, 10):
        root = scratch / f"x{copies}"
        root.mkdir(parents=True)
        notes = corpus.make_repo(root, args.data, copies)
        index = root / ".memidx" / "index.sqlite"
        times: list[float] = []
        for _ in range(args.rounds):
            for part in index.parent.glob("index.sqlite*"):
                part.unlink()
            times.append(timed_process([str(MEMIDX_BIN), "ingest"], root)[0])
        size = sum(p.stat().st_size for p in index.parent.glob("index.sqlite*"))
        cold: list[float] = []
        for _ in range(args.rounds):
            for q in corpus.TIL_QUERIES:
                cold.append(timed_process([str(MEMIDX_BIN), "search", "--json", "--", q], root)[0])
        rate = notes / median(times)
        print(
            f"{notes:>6} notes  ingest {median(times):.2f} s = {rate:,.0f} notes/s"
            f"  index {size / 1024 / 1024:.1f} MB  cold bm25 search p50 {ms(percentile(cold, 50))}"
            f" p95 {ms(percentile(cold, 95))} ({len(cold)} runs, {len(corpus.TIL_QUERIES)} queries)"
        )


SECTIONS: dict[str, Section] = {"golden": golden, "scale": scale}
