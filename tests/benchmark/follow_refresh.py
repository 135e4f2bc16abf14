"""What git's refresh of the whole index costs a forget and a remember: a throwaway memory of N
notes, each `touch`ed (their stat changed, their bytes not) before each command, so that a
refresh of every entry reads and hashes each file again (git 2.36 on: `git reset -q <commit>
-- <paths>` does, memidx.git.index_refresh). For each checkout given (its memidx run with
PYTHONPATH=<checkout>), in turn within each of RUNS rounds so that all see the same load: the
seconds a `memidx forget` and a `memidx remember` took; then the median of each and its ratio
to the first checkout's (the baseline). Also, on copies of the index, the move's follow alone:
`git reset -q` against memidx's words (index_refresh.reset_words, then refreshed).

    cd /tmp && PYTHONPATH=<checkout> python -m tests.benchmark.follow_refresh 20000 \\
        <baseline checkout> <checkout>
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from statistics import median

from memidx.git.index_refresh import refreshed, reset_words

RUNS = 5
IDENTITY = ("-c", "user.name=bench", "-c", "user.email=bench@example.invalid")


def _git(root: Path, *args: str, index: Path | None = None) -> str:
    env = {**os.environ, **({"GIT_INDEX_FILE": str(index)} if index else {})}
    done = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, check=True)
    return done.stdout.decode().strip()


def memory(count: int) -> Path:
    """A memory of `count` committed notes, `.memidx/` ignored."""
    root = Path(tempfile.mkdtemp(prefix="follow-refresh-"))
    _git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text(".memidx/\n")
    (root / "notes").mkdir()
    for n in range(count):
        text = f"# Note {n}\n\nWhat note {n} says about the deploys of service {n % 97}.\n"
        (root / "notes" / f"n{n:05d}.md").write_text(text)
    _git(root, "add", "-A")
    _git(root, *IDENTITY, "commit", "-q", "-m", "notes")
    return root


def touched(root: Path) -> None:
    """Every note given a new mtime (and so ctime), as `touch` gives it: stat-dirty."""
    subprocess.run(["find", "notes", "-name", "*.md", "-exec", "touch", "{}", "+"], cwd=root,
                   check=True)  # fmt: skip


def timed(run: Callable[[], object]) -> float:
    began = time.monotonic()
    run()
    return time.monotonic() - began


def memidx(checkout: str, root: Path, *args: str, stdin: str = "") -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "MEMIDX_"))}
    env["PYTHONPATH"] = checkout
    argv = [sys.executable, "-m", "memidx", "-C", str(root), *args]
    done = subprocess.run(argv, env=env, input=stdin.encode(), capture_output=True, check=False)
    if done.returncode:
        raise SystemExit(f"memidx {' '.join(args)} failed: {done.stderr.decode()}")


def commands(root: Path, checkouts: Sequence[str]) -> dict[str, list[float]]:
    """Seconds per `<checkout> forget|remember`, RUNS each, the checkouts in turn, once each
    checkout's `memidx sync` built the index (untimed: the first checkout's first forget built
    it, 37.6 s of 20,000 notes, one of the baseline's five)."""
    took: dict[str, list[float]] = {}
    for checkout in checkouts:
        memidx(checkout, root, "sync")
    for run in range(RUNS):
        for number, checkout in enumerate(checkouts):
            note = f"notes/n{run * len(checkouts) + number:05d}.md"
            touched(root)
            took.setdefault(f"{number} forget", []).append(
                timed(lambda: memidx(checkout, root, "forget", note))  # noqa: B023
            )
            touched(root)
            title, text = f"Rollback {run} {number}", "Roll back a deploy on Fridays.\n"
            took.setdefault(f"{number} remember", []).append(
                timed(lambda: memidx(checkout, root, "remember", "--title", title, stdin=text))  # noqa: B023
            )
    return took


def follows(root: Path, touch: bool) -> dict[str, list[float]]:
    """Seconds for the move's follow alone on a copy of git's index (a forget's path reset):
    git's `reset -q` (a whole refresh from 2.36) and memidx's words, in turn, RUNS each; with
    every note `touch`ed first, or (`touch` False) none, the index fresh: what the whole
    refresh costs when there is nothing to hash again."""
    head, index = _git(root, "rev-parse", "HEAD"), root / ".git" / "index"
    path = _git(root, "ls-files", "notes").splitlines()[0]
    copy = root / ".git" / "bench-follow-index"
    took: dict[str, list[float]] = {}
    words = {"reset -q": ("reset", "-q", head, "--", path), "memidx": reset_words(head, [path])}
    for _ in range(RUNS):
        for name, args in words.items():
            if touch:
                touched(root)
            shutil.copy2(index, copy)
            env = {**os.environ, "GIT_INDEX_FILE": str(copy)}

            def follow(args: Sequence[str] = args, env: dict[str, str] = env) -> None:
                subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, check=True)
                if args != words["reset -q"]:
                    refreshed(root, env, args)

            label = f"follow {name}{'' if touch else ', nothing touched'}"
            took.setdefault(label, []).append(timed(follow))
    copy.unlink(missing_ok=True)
    return took


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    count, checkouts = int(args[0]), args[1:]
    root = memory(count)
    try:
        _git(root, "update-index", "-q", "--refresh")
        took = follows(root, touch=False)
        took.update(follows(root, touch=True))
        if checkouts:
            took.update(commands(root, checkouts))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    base = {what.split()[1]: median(times) for what, times in took.items() if what[0] == "0"}
    print(f"{count} notes, touched before each (but where said), median of {RUNS}:")
    for what, times in took.items():
        kind = what.split()[-1]
        ratio = f"  x{median(times) / base[kind]:.2f}" if kind in base and what[0] != "f" else ""
        label = f"{checkouts[int(what[0])]} {kind}" if what[0].isdigit() else what
        print(f"  {label}: {median(times):.3f} s{ratio}  ({', '.join(f'{t:.2f}' for t in times)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
