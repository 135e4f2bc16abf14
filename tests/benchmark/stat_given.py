"""What memidx.git.index_refresh.stat_given (run at the end of each commit of notes written from
memory: each `memidx remember`) costs on a throwaway memory of N notes, its note's index entry
with its stat (memidx's own follow, the move's shell) or without (the fast path's swap writes
the file after the index), for each checkout given (run with PYTHONPATH=<checkout>, timed inside
that process), in turn within each of RUNS rounds: the median and its ratio to the first
checkout's (the baseline).

    cd /tmp && PYTHONPATH=<checkout> python -m tests.benchmark.stat_given 3000 \\
        <baseline checkout> <checkout>
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from statistics import median

from tests.benchmark.follow_refresh import RUNS, memory

GIVEN = (
    "import sys, time; from pathlib import Path; from memidx.git.index_refresh import stat_given\n"
    "import shutil, subprocess, memidx.git.index_copy, memidx.git.repo  # as a remember has\n"
    "import memidx.git.folder_asides, memidx.git.judged_unlink, memidx.process_start\n"
    "root = Path(sys.argv[1])\n"
    "began = time.monotonic()\n"
    "stat_given(root, root / '.git', [f':(literal){sys.argv[2]}'])\n"
    "print(time.monotonic() - began)\n"
)


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, check=True)
    return done.stdout.decode().strip()


def given(checkout: str, root: Path, path: str, stat: bool) -> float:
    """Seconds of `checkout`'s stat_given of `path`, its entry with its stat or without."""
    if stat:
        _git(root, "update-index", "-q", "--refresh")
    else:
        blob = _git(root, "rev-parse", f"HEAD:{path}")
        _git(root, "update-index", "--cacheinfo", f"100644,{blob},{path}")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "MEMIDX_"))}
    env["PYTHONPATH"] = checkout
    argv = [sys.executable, "-c", GIVEN, str(root), path]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    if _git(root, "diff-files", "--name-only", "--", path):
        raise SystemExit(f"{checkout}'s stat_given left {path} without its stat")
    return float(done.stdout)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    count, checkouts = int(args[0]), args[1:]
    root = memory(count)
    path = _git(root, "ls-files", "notes").splitlines()[0]
    took: dict[tuple[str, bool], list[float]] = {}
    try:
        for _ in range(RUNS):
            for stat in (True, False):
                for checkout in checkouts:
                    took.setdefault((checkout, stat), []).append(given(checkout, root, path, stat))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{count} notes, stat_given of one, median of {RUNS}:")
    for (checkout, stat), times in took.items():
        base = median(took[(checkouts[0], stat)])
        listed = ", ".join(f"{t * 1000:.1f}" for t in times)
        state = "with its stat" if stat else "stat-less"
        ratio = median(times) / base
        print(f"  {checkout}, {state}: {median(times) * 1000:.1f} ms  x{ratio:.2f}  ({listed})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
