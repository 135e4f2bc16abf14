"""How long one move of HEAD (memidx.git.publish.move_head) holds `.git/index.lock`, the
window in which a person's `git add` or `git commit` is refused: a throwaway repository of N
notes, a commit that deletes them all, the move with its follow (`git restore --staged` of
those paths, their files deleted while they hold the bytes judged) on the slow path (no copy
made before the move: memidx.git.move_follow) or the fast one (memidx.git.index_swap), with a
reference-transaction hook that sleeps HOOK seconds at `committed` (0: none). A thread polls
the lock every 0.2 ms; the median of RUNS moves, each on a new repository.

    cd /tmp && PYTHONPATH=<checkout> python -m tests.benchmark.move_window 50 slow 0.1

Run it for two checkouts in one go to compare them on the same load.
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from pathlib import Path
from statistics import median

from memidx.git import publish
from tests.plumbing import forgetting, git

RUNS = 5


def _forgetting(root: Path, count: int, hook: float) -> tuple[str, str, list[str]]:
    """A repository of `count` notes and a commit that deletes them: (old, new, paths)."""
    paths = [f"notes/n{n:03d}.md" for n in range(count)]
    old, new = forgetting(root, paths)
    if hook:
        script = root / ".git" / "hooks" / "reference-transaction"
        script.write_text(f'#!/bin/sh\ncat >/dev/null\n[ "$1" = committed ] && sleep {hook}\n:\n')
        script.chmod(0o755)
    return old, new, paths


def one_move(count: int, path: str, hook: float) -> float:
    """The milliseconds index.lock was there during one move."""
    root = Path(tempfile.mkdtemp(prefix="move-window-"))
    old, new, paths = _forgetting(root, count, hook)
    then = ("restore", "-q", "--staged", f"--source={new}", "--")
    then += tuple(f":(literal){p}" for p in paths)
    gone: dict[str, bytes | None] = {p: (root / p).read_bytes() for p in paths}
    lock, seen, stop = root / ".git" / "index.lock", dict[str, float](), threading.Event()

    def watch() -> None:
        while not stop.is_set():
            there = lock.exists()
            if there and "on" not in seen:
                seen["on"] = time.monotonic()
            if not there and "on" in seen and "off" not in seen:
                seen["off"] = time.monotonic()
            time.sleep(0.0002)

    watcher = threading.Thread(target=watch)
    watcher.start()
    ready = then if path == "fast" else ()
    moved = publish.move_head(root, root / ".git", new, old, "bench", then=then, gone=gone,
                              ready=ready)  # fmt: skip
    time.sleep(0.05)
    stop.set()
    watcher.join()
    assert moved == publish.DONE, moved
    assert git(root, "status", "--porcelain", "-uall") == ""
    return (seen["off"] - seen["on"]) * 1000


def main(argv: list[str]) -> int:
    count, path, hook = int(argv[0]), argv[1], float(argv[2])
    held = sorted(one_move(count, path, hook) for _ in range(RUNS))
    shown = ", ".join(f"{ms:.1f}" for ms in held)
    print(f"{path} N={count} hook={hook}s: median {median(held):.1f} ms ({shown})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
