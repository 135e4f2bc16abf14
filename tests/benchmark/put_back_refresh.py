"""What the put-back for a late `git pull` (memidx.git.late_pull._put_back: HEAD put back, git's
index taken back at memidx's paths under git's index.lock while the pull waits) costs on a
throwaway memory of N notes, each `touch`ed (stat changed, bytes not) before each put-back, so
that a refresh of every entry reads and hashes each file again (git 2.36 on: a plain `git reset
-q <old> -- <paths>` does, memidx.git.index_refresh). For each checkout given (its put-back run
with PYTHONPATH=<checkout>, timed inside that process), in turn within each of RUNS rounds so
that all see the same load: the median and its ratio to the first checkout's (the baseline).

    cd /tmp && PYTHONPATH=<checkout> python -m tests.benchmark.put_back_refresh 20000 \\
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

from tests.benchmark.follow_refresh import IDENTITY, RUNS, memory, touched


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, check=True)
    return done.stdout.decode().strip()


# run with PYTHONPATH=<checkout>: its put-back of memidx's last commit, seconds on stdout
PUT_BACK = (
    "import sys, time; from pathlib import Path; from memidx.git.late_pull import _put_back\n"
    "root, new, old, path = Path(sys.argv[1]), *sys.argv[2:]\n"
    "began = time.monotonic()\n"
    "put = _put_back(root, 'refs/heads/main', new, old, [f':(literal){path}'])\n"
    "print(time.monotonic() - began if put == 0 else f'put back: {put}')\n"
)


def put_back(checkout: str, root: Path, number: int) -> float:
    """Seconds of `checkout`'s put-back of a commit of one new note, every note touched."""
    path = f"notes/remembered-{number}.md"
    (root / path).write_text(f"# Remembered {number}\n\nRoll back a deploy on Fridays.\n")
    _git(root, "add", path)
    _git(root, *IDENTITY, "commit", "-q", "-m", f"memidx remember {number}")
    new, old = _git(root, "rev-parse", "HEAD", "HEAD^").split()
    touched(root)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "MEMIDX_"))}
    env["PYTHONPATH"] = checkout
    argv = [sys.executable, "-c", PUT_BACK, str(root), new, old, path]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode or not done.stdout[:1].isdigit():
        raise SystemExit(f"{checkout}'s put-back failed: {done.stdout}{done.stderr}")
    if _git(root, "ls-files", "--", path) or _git(root, "rev-parse", "HEAD") != old:
        raise SystemExit(f"{checkout}'s put-back left {path} in git's index or HEAD not at old")
    (root / path).unlink()
    return float(done.stdout)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    count, checkouts = int(args[0]), args[1:]
    root = memory(count)
    took: dict[str, list[float]] = {}
    try:
        _git(root, "update-index", "-q", "--refresh")
        for run in range(RUNS):
            for number, checkout in enumerate(checkouts):
                seconds = put_back(checkout, root, run * len(checkouts) + number)
                took.setdefault(checkout, []).append(seconds)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    base = median(took[checkouts[0]])
    print(f"{count} notes, touched before each put-back, median of {RUNS}:")
    for checkout, times in took.items():
        listed = ", ".join(f"{t:.3f}" for t in times)
        print(
            f"  {checkout} put-back: {median(times):.3f} s  x{median(times) / base:.2f}  ({listed})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
