"""Haystack figures: appending and indexing one turn (in-process and as a new process), and
100k turns filed next to the ~19k-note corpus: cold BM25 search and rebuild speed."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from memidx.config import load_config
from memidx.frozen import replace
from memidx.haystack.filing import Haystack
from tests.benchmark import corpus, locomo
from tests.benchmark.timing import ms, percentile, timed_process
from tests.benchmark.turns import turn_text
from tests.benchmark.workspace import memidx, repo
from tests.helpers import MEMIDX_BIN

TURNS = 100_000


def run(args: argparse.Namespace) -> None:
    dataset = locomo.load(args.data)
    texts = [turn_text(t) for t in dataset.turns]
    stamp = f"haystack-100k:{len(texts)}:{args.data}"
    root, built = repo(
        args.work, "haystack-100k", stamp, lambda r: corpus.write_til(r, args.data, 10)
    )
    if built:
        memidx(root, "ingest", quiet=True)
        started = time.perf_counter()
        bulk = Haystack(replace(load_config(root), fsync=False))
        for n in range(TURNS):
            bulk.file(
                "turn",
                f"{texts[n % len(texts)]} (filed {n})",
                session=f"bulk-{n // 50}",
                agent="bench",
                drawer="bulk",
            )
        bulk.close()
        print(f"filed {TURNS:,} turns in {time.perf_counter() - started:.0f} s (bulk, fsync off)")
    one_turn(root, texts)
    cold_search(root, args)
    rebuild(root)


def one_turn(root: Path, texts: list[str]) -> None:
    """Append + index one turn with fsync on, in-process and as `memidx file-turn`."""
    haystack = Haystack(load_config(root))
    times: list[float] = []
    for n in range(200):
        start = time.perf_counter()
        haystack.file(
            "turn", f"{texts[n]} (timed {time.time_ns()})", session="timed", agent="bench"
        )
        times.append(time.perf_counter() - start)
    haystack.close()
    print(
        f"append + index one turn in-process (fsync on): p50 {ms(percentile(times, 50))} "
        f"p95 {ms(percentile(times, 95))} ({len(times)} turns)"
    )
    process: list[float] = []
    for n in range(30):
        payload = json.dumps(
            {
                "user": texts[n],
                "assistant": f"noted {time.time_ns()}",
                "session": "timed-cli",
                "agent": "bench",
            }
        )
        process.append(timed_cli(root, payload))
    print(
        f"`memidx file-turn` as a new process: p50 {ms(percentile(process, 50))} "
        f"p95 {ms(percentile(process, 95))} ({len(process)} runs)"
    )


def timed_cli(root: Path, payload: str) -> float:
    import subprocess

    from tests.helpers import clean_env

    start = time.perf_counter()
    subprocess.run(
        [str(MEMIDX_BIN), "file-turn"],
        cwd=root,
        input=payload,
        text=True,
        capture_output=True,
        check=True,
        env=clean_env(MEMIDX_HOOK_EMBED="0"),
    )
    return time.perf_counter() - start


def cold_search(root: Path, args: argparse.Namespace) -> None:
    # status exits 1 on drift as well; only its counts are read here
    status = json.loads(memidx(root, "status", "--json", quiet=True, ok=(0, 1)))
    cold = [
        timed_process([str(MEMIDX_BIN), "search", "--mode", "bm25", "--json", "--", q], root)[0]
        for _ in range(args.rounds)
        for q in corpus.TIL_QUERIES
    ]
    print(
        f"cold bm25 search over {status['kinds']}: p50 {ms(percentile(cold, 50))} "
        f"p95 {ms(percentile(cold, 95))} ({len(cold)} runs)"
    )


def rebuild(root: Path) -> None:
    """Delete the index and ingest: notes from git, records by scanning the segments."""
    for part in (root / ".memidx").glob("index.sqlite*"):
        if part.is_file():
            part.unlink()
    wall, out = timed_process([str(MEMIDX_BIN), "ingest", "--json"], root)
    report = json.loads(out)
    records = report["records"]["scanned"]
    print(
        f"rebuild from scratch: {report['read']:,} notes and {records:,} records in "
        f"{wall:.1f} s ({(report['read'] + records) / wall:,.0f} documents/s)"
    )
