"""Random git operations at scale (tests/gitops.py): thousands of operations over several seeds
on two machines with the real hooks. Prints the operations run and their mix, the divergences
between the hook-maintained index and a fresh rebuild (goal 0) and the wall time per operation.

    python -m tests.benchmark.gitops --ops 200 [--seeds N] [--seed S] [--jobs J] [--decks]
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from statistics import median

from tests.benchmark.timing import ms, percentile
from tests.gitops import RunResult, run_seed

DEFAULT_OPS = 2000
OPS_PER_SEED = 250
FIRST_SEED = 1


def run(args: argparse.Namespace) -> None:
    """The bench section; reads --ops, --seeds, --seed, --jobs and --decks when present."""
    ops = int(getattr(args, "ops", DEFAULT_OPS))
    seed = getattr(args, "seed", None)
    count = int(getattr(args, "seeds", 0) or max(1, math.ceil(ops / OPS_PER_SEED)))
    seeds = [int(seed)] if seed is not None else list(range(FIRST_SEED, FIRST_SEED + count))
    per_seed = math.ceil(ops / len(seeds))
    jobs = max(1, int(getattr(args, "jobs", 0) or os.cpu_count() or 1))
    print(f"{len(seeds)} seeds x {per_seed} operations, {jobs} at a time", flush=True)
    started = time.perf_counter()
    results = _run_all(seeds, per_seed, jobs, bool(getattr(args, "decks", False)))
    _print_summary(results, time.perf_counter() - started, jobs)


def _run_all(seeds: Sequence[int], ops: int, jobs: int, decks: bool) -> list[RunResult]:
    with tempfile.TemporaryDirectory(prefix="memidx-gitops-") as scratch:
        work, home = Path(scratch), Path(scratch) / "pre-commit-home"
        if jobs == 1:
            return [_done(run_seed(s, ops, work, home, decks)) for s in seeds]
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=spawn) as pool:
            futures = [pool.submit(run_seed, s, ops, work, home, decks) for s in seeds]
            return [_done(f.result()) for f in futures]


def _done(result: RunResult) -> RunResult:
    print(
        f"  seed {result.seed}: {result.ops} operations, {len(result.divergences)} divergences"
        + (" (stopped early)" if result.failure else ""),
        flush=True,
    )
    return result


def _print_summary(results: Sequence[RunResult], seconds: float, jobs: int) -> None:
    kinds: Counter[str] = Counter()
    what: Counter[str] = Counter()
    for result in results:
        kinds.update(result.kinds)
        what.update(d.what for d in result.divergences)
    op_times = [t for r in results for t in r.op_seconds]
    checks = [t for r in results for t in r.check_seconds]
    divergent = [r for r in results if r.divergences]
    total = sum(r.ops for r in results)
    print(f"operations run: {total} over {len(results)} seeds in {seconds:.0f} s")
    print("per kind: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    print(
        f"divergences: {sum(what.values())} (goal 0)"
        + (f": {', '.join(f'{k} {n}' for k, n in sorted(what.items()))}" if what else "")
        + f"; operations with one: {sum(len({d.op for d in r.divergences}) for r in results)}"
    )
    if op_times:
        print(
            f"wall time per operation (git + hooks): median {ms(median(op_times))}, "
            f"p95 {ms(percentile(op_times, 95))}; check (rebuild + compare + reconcile): "
            f"median {ms(median(checks))}" + (f"; {jobs} runs in parallel" if jobs > 1 else "")
        )
    for result in divergent:
        print(f"\nseed {result.seed}: {len(result.divergences)} divergences")
        for divergence in result.divergences[:5]:
            print(f"  {str(divergence)[:300]}")
        print("  reproduce: " + result.report().splitlines()[1].removeprefix("reproduce: "))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmark.gitops", description=__doc__)
    parser.add_argument("--ops", type=int, default=DEFAULT_OPS, help="operations in all")
    parser.add_argument(
        "--seeds", type=int, default=0, help=f"number of seeds (default: one per {OPS_PER_SEED})"
    )
    parser.add_argument("--seed", type=int, help="run this one seed (to reproduce a run)")
    parser.add_argument("--jobs", type=int, default=1, help="seeds run in parallel processes")
    parser.add_argument(
        "--decks", action="store_true", help="kinds drawn from decks, as the suite's short runs"
    )
    args = parser.parse_args(argv)
    run(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
