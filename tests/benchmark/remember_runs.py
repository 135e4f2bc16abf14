"""`memidx remember` timed as a whole, for each checkout given (run with PYTHONPATH=<checkout>),
in turn within each of ROUNDS rounds (the order reversed each round, the first round left out:
it builds the index), each on its own copy of one throwaway memory of N notes: the median of
each.

    cd /tmp && python -m tests.benchmark.remember_runs 3000 <baseline checkout> <checkout>
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from statistics import median

from tests.benchmark.follow_refresh import memory

ROUNDS = 15


def _copy(source: Path, at: Path) -> Path:
    shutil.copytree(source, at, symlinks=True)
    for args in (("config", "user.name", "Bench"), ("config", "user.email", "b@example.com"),
                 ("update-index", "-q", "--refresh")):  # fmt: skip
        subprocess.run(["git", "-C", str(at), *args], check=False)
    return at


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    count, checkouts = int(args[0]), args[1:]
    source, work = memory(count), Path(tempfile.mkdtemp(prefix="remember-runs-"))
    roots = [_copy(source, work / f"memory-{n}") for n in range(len(checkouts))]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "MEMIDX_"))}
    env["HOME"] = str(work / "home")  # no config of the person's names these memories
    times: list[list[float]] = [[] for _ in checkouts]
    for round_ in range(ROUNDS):
        order = list(range(len(checkouts)))
        for n in order if round_ % 2 == 0 else order[::-1]:
            argv_ = [sys.executable, "-m", "memidx", "-C", str(roots[n]), "remember", "--title",
                     f"Bench note {round_}"]  # fmt: skip
            began = time.monotonic()
            subprocess.run(argv_, env={**env, "PYTHONPATH": checkouts[n]}, check=True,
                           input=f"note {round_} on the deploys\n", capture_output=True,
                           text=True)  # fmt: skip
            if round_:
                times[n].append(time.monotonic() - began)
    base = median(times[0])
    for checkout, seen in zip(checkouts, times, strict=True):
        print(f"{checkout}: median {median(seen) * 1000:.0f} ms ({median(seen) / base:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
