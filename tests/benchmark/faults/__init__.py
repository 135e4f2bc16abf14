"""The fault campaign of issue #12 (`make bench ONLY=faults`), reproducible by seed:
(a) kill -9 at random moments of ingest, embed, file-turn, remember and a hooked git commit;
(b) truncation at every byte of the last record and byte flips in middle records;
(c) ENOSPC on a small tmpfs (root only; skipped with the reason otherwise);
(d) editors appending to tracked notes while agents and a person commit.
Each part reports acknowledged records and edits lost, index left unusable and manual steps
needed beyond the README (target 0 each), with what it saw. Figures, not assertions.

    python -m tests.benchmark.faults [--seed 1] [--kills 100] [--rounds 8] [--parts a,b,c,d]
    make bench ONLY=faults   (BENCH_FAULTS_SEED, BENCH_FAULTS_KILLS, BENCH_FAULTS_ROUNDS,
                              BENCH_FAULTS_PARTS scale it)
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from tests.benchmark.faults.disk import run_disk
from tests.benchmark.faults.editors import run_editors
from tests.benchmark.faults.frames import run_frames
from tests.benchmark.faults.kills import run_kills
from tests.benchmark.faults.tally import Tally

SEED, KILLS, ROUNDS, PARTS = 1, 100, 8, "a,b,c,d"


def run(args: argparse.Namespace) -> None:
    """The bench section: --faults-* options when the runner has them, else BENCH_FAULTS_*."""
    seed = int(_setting(args, "faults_seed", "BENCH_FAULTS_SEED", SEED))
    kills = int(_setting(args, "faults_kills", "BENCH_FAULTS_KILLS", KILLS))
    rounds = int(_setting(args, "faults_rounds", "BENCH_FAULTS_ROUNDS", ROUNDS))
    parts = _setting(args, "faults_parts", "BENCH_FAULTS_PARTS", PARTS).split(",")
    print(f"seed {seed}; reproduce: python -m tests.benchmark.faults --seed {seed} "
          f"--kills {kills} --rounds {rounds} --parts {','.join(parts)}", flush=True)  # fmt: skip
    steps: dict[str, Callable[[Path], list[Tally]]] = {
        "a": lambda where: [run_kills(where, seed, kills)],
        "b": lambda where: [run_frames(where, seed)],
        "c": lambda where: [run_disk(where, seed)],
        "d": lambda where: run_editors(where, seed, rounds),
    }
    tallies: list[Tally] = []
    with tempfile.TemporaryDirectory(prefix="memidx-faults-") as scratch:
        for part in (p for p in steps if p in parts):
            began = time.perf_counter()
            where = Path(scratch) / part
            where.mkdir()
            found = steps[part](where)
            for tally in found:
                tally.print()
            print(f"   ({time.perf_counter() - began:.0f} s)", flush=True)
            tallies += found
    _summary(tallies, seed)


def _summary(tallies: Sequence[Tally], seed: int) -> None:
    print(f"\nsummary (seed {seed}; target 0 in the last three columns)")
    print(f"  {'part':<58} {'runs':>5} {'acked':>6} {'lost':>5} {'unusable':>8} {'manual':>6}")
    for t in tallies:
        name = t.part.split(" (seed")[0][:58]
        if t.skipped:
            print(f"  {name:<58} skipped: {t.skipped[:60]}")
            continue
        print(
            f"  {name:<58} {t.runs:>5} {t.acknowledged:>6} {t.lost_items:>5} "
            f"{len(t.unusable):>8} {len(t.manual):>6}"
        )


def _setting(args: argparse.Namespace, name: str, variable: str, default: object) -> str:
    value = getattr(args, name, None)
    return str(value if value is not None else os.environ.get(variable) or default)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmark.faults", description=__doc__)
    parser.add_argument("--seed", dest="faults_seed", type=int, help=f"default {SEED}")
    parser.add_argument(
        "--kills", dest="faults_kills", type=int, help=f"runs of (a), default {KILLS}"
    )
    parser.add_argument(
        "--rounds", dest="faults_rounds", type=int, help=f"rounds of (d), default {ROUNDS}"
    )
    parser.add_argument("--parts", dest="faults_parts", help=f"default {PARTS}")
    run(parser.parse_args(argv))
    return 0
