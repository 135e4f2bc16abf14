"""What memidx's git hooks add to git at ~19k notes: one-note commits, checkouts and merges with
the hooks installed as `make install` does (pre-commit's checks, memidx's post-* shims), against
the same operations with no hooks at all (`git -c core.hooksPath=/dev/null`), sides taking turns
operation by operation in the same run, so the machine's load hits them alike and the paired
difference is the hooks' overhead. `--baseline REV` adds REV's whole hook setup as a third side.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from itertools import permutations
from pathlib import Path
from statistics import median

from tests.benchmark import corpus, hook_sides
from tests.benchmark.hook_sides import ONE_NOTE, Side
from tests.benchmark.timing import ms, percentile
from tests.benchmark.workspace import repo
from tests.helpers import GIT_IDENTITY
from tests.machines import hook_env

Timings = dict[str, list[float]]
SIDE_BRANCH = "bench-side"
NOTE_LINE = "\nEdited in {} of the hook benchmark.\n"


def run(args: argparse.Namespace, stamp: str) -> None:
    """The bench section: `stamp` names the TIL data the ~19k-note workspace is built from."""
    root, _ = repo(args.work, "hooks-x10", stamp, lambda r: _write_corpus(r, args.data))
    env = hook_env(root / ".memidx" / "pre-commit-home")
    with tempfile.TemporaryDirectory(prefix="memidx-hooks-") as scratch:
        bench = Bench(root, env, Path(scratch))
        bench.prepare(args.baseline)
        commits, others = max(24, 8 * args.rounds), max(8, 4 * args.rounds)
        bench.pick_notes(2 * commits + others + 1)
        print(bench.describe(), flush=True)
        report("commit --no-verify (the post-commit hook only)", bench.commits(commits, False))
        report("commit (pre-commit's checks + the post-commit hook)", bench.commits(commits, True))
        report("checkout of a branch one note apart (post-checkout)", bench.checkouts(others))
        report("fast-forward merge of a one-note commit (post-merge)", bench.merges(others))
        print(f"index in step after: {bench.in_step()}; {load_line()}")


def _write_corpus(root: Path, data: Path) -> None:
    corpus.git(root, "init", "-q", "-b", "main")
    corpus.git(root, "config", "gc.auto", "0")  # no detached gc from the corpus commit
    corpus.write_til(root, data, 10)
    (root / ".gitignore").write_text(".memidx/\n")


class Bench:
    """One workspace, the sides to compare and the notes the operations change."""

    def __init__(self, root: Path, env: dict[str, str], scratch: Path) -> None:
        self.root, self.env, self.scratch = root, env, scratch
        self.sides: list[Side] = []
        self.notes: Iterator[Path] = iter(())
        self.on_side_branch = False
        self.count = 0

    def prepare(self, baseline: str) -> None:
        """Back to the corpus commit with this code's hook files, every side installed, the
        objects packed (no `gc --auto` inside a timed operation) and the index at HEAD."""
        self.git("config", "gc.auto", "0")
        self.git("config", "maintenance.auto", "false")
        corpus_commit = self.git("rev-list", "--max-parents=0", "HEAD").split()[0]
        self.git("checkout", "-q", "-f", "-B", "main", corpus_commit)
        self.git("branch", "-q", "-D", SIDE_BRANCH, check=False)
        hook_sides.refresh_hook_files(self.root, self.setup_git(), self.env)
        if int(self.git("count-objects").split()[0]) > 1000:  # loose objects
            self.git("gc", "-q", "--prune=now")
        self.sides = [hook_sides.no_hooks(self.env)]
        if baseline:  # installed first: it uses the repository's hooks folder on the way
            self.sides.append(hook_sides.baseline(self.root, baseline, self.scratch, self.env))
        self.sides.insert(1, hook_sides.this_code(self.root, self.env))
        for side in self.sides:
            if side.index is not None:
                self.memidx(side, "sync" if side.index.exists() else "ingest")

    def pick_notes(self, per_side: int) -> None:
        """Distinct notes, spread over the corpus, one for each operation of every side."""
        every = sorted((self.root / "notes").rglob("*.md"))
        wanted = per_side * len(self.sides)
        self.notes = iter(every[:: max(1, len(every) // wanted)][:wanted])
        self.count = len(every)

    def describe(self) -> str:
        start = [timed_run([sys.executable, "-c", "pass"], self.root, self.env) for _ in range(10)]
        idle_hook = [sys.executable, "-m", "memidx", "hook", "post-commit"]
        idle = [timed_run(idle_hook, self.root, self.env) for _ in range(10)]
        return (
            f"{self.count:,} notes; sides, taking turns: "
            + ", ".join(s.name for s in self.sides)
            + f". python start-up p50 {ms(median(start))}; `memidx hook post-commit` with "
            f"nothing to do p50 {ms(median(idle))}; {load_line()}"
        )

    def commits(self, rounds: int, verify: bool) -> Timings:
        def commit(side: Side, i: int) -> float:
            label = f"commit {i} ({side.name}, {'checks' if verify else 'no-verify'})"
            self.git("add", self.edit(next(self.notes), label))
            flags = [] if verify else ["--no-verify"]
            return self.timed(side, ["commit", "-q", *flags, "-m", label])

        return self.rounds(rounds, commit)

    def checkouts(self, rounds: int) -> Timings:
        self.git("branch", "-q", SIDE_BRANCH, self.one_note_commit("the side branch"))

        def checkout(side: Side, _: int) -> float:
            target = "main" if self.on_side_branch else SIDE_BRANCH
            self.on_side_branch = not self.on_side_branch
            return self.timed(side, ["checkout", "-q", target])

        timings = self.rounds(rounds, checkout)
        if self.on_side_branch:
            self.git("checkout", "-q", "main")
            self.catch_up()
        return timings

    def merges(self, rounds: int) -> Timings:
        def merge(side: Side, i: int) -> float:
            commit = self.one_note_commit(f"merge {i} ({side.name})")
            return self.timed(side, ["merge", "-q", "--ff-only", commit])

        return self.rounds(rounds, merge)

    def rounds(self, count: int, operation: Callable[[Side, int], float]) -> Timings:
        """`count` rounds of one operation per side, the order of the sides rotating."""
        orders = list(permutations(self.sides))
        timings: Timings = {side.name: [] for side in self.sides}
        for i in range(count):
            for side in orders[i % len(orders)]:
                timings[side.name].append(operation(side, i))
        return timings

    def timed(self, side: Side, argv: list[str]) -> float:
        """Wall time of one git operation on `side`; then the other sides' indexes are brought
        to HEAD (untimed), so every hook has exactly one note to index."""
        command = ["git", *GIT_IDENTITY, *side.git_options(), *argv]
        start = time.perf_counter()
        done = subprocess.run(
            command, cwd=self.root, env=side.env, capture_output=True, text=True, check=False
        )
        elapsed = time.perf_counter() - start
        said = done.stdout + done.stderr
        if done.returncode != 0:
            raise RuntimeError(f"{side.name}: git {' '.join(argv)} failed: {said}")
        if side.syncs and not ONE_NOTE.search(said):
            raise RuntimeError(
                f"{side.name}: git {argv[0]}: the hooks did not index one note: {said}"
            )
        self.catch_up(side)
        return elapsed

    def catch_up(self, done: Side | None = None) -> None:
        """Bring the index of every side but `done` to HEAD, with that side's memidx."""
        for side in self.sides:
            if side.syncs and side is not done:
                self.memidx(side, "sync")

    def in_step(self) -> str:
        """Whether each side's index matches HEAD, as its own `memidx reconcile` sees it."""
        answers: list[str] = []
        for side in filter(lambda s: s.syncs, self.sides):
            in_step = self.memidx(side, "reconcile", check=False).returncode == 0
            answers.append(f"{side.name} {'yes' if in_step else 'NO'}")
        return ", ".join(answers)

    def edit(self, note: Path, label: str) -> str:
        note.write_text(note.read_text() + NOTE_LINE.format(label))
        return note.relative_to(self.root).as_posix()

    def one_note_commit(self, label: str) -> str:
        """A commit on top of HEAD that changes one note, made with plumbing: the work tree and
        git's index stay as they are until git moves to it."""
        note = next(self.notes)
        path = note.relative_to(self.root).as_posix()
        blob = self.git(
            "hash-object", "-w", "--stdin", text=note.read_text() + NOTE_LINE.format(label)
        )
        index = {"GIT_INDEX_FILE": str(self.scratch / "plumbing-index")}
        self.git("read-tree", "HEAD", extra=index)
        self.git("update-index", "--cacheinfo", f"100644,{blob.strip()},{path}", extra=index)
        tree = self.git("write-tree", extra=index).strip()
        return self.git("commit-tree", tree, "-p", "HEAD", "-m", label).strip()

    def setup_git(self) -> list[str]:
        return ["git", *GIT_IDENTITY, "-c", f"core.hooksPath={hook_sides.NO_HOOKS}"]

    def git(
        self,
        *args: str,
        check: bool = True,
        text: str | None = None,
        extra: dict[str, str] | None = None,
    ) -> str:
        """git with no hooks, for setting up what the timed operations start from."""
        done = subprocess.run(
            [*self.setup_git(), *args],
            cwd=self.root,
            env={**self.env, **(extra or {})},
            input=text,
            capture_output=True,
            text=True,
            check=False,
        )
        if check and done.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)} failed: {done.stdout}{done.stderr}")
        return done.stdout

    def memidx(
        self, side: Side, *args: str, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            side.memidx(*args),
            cwd=self.root,
            env={"MEMIDX_ROOT": str(self.root), **side.env},  # a new workspace is no memory yet
            capture_output=True,
            text=True,
            check=False,
        )
        if check and done.returncode != 0:
            raise RuntimeError(f"memidx {' '.join(args)} failed: {done.stdout}{done.stderr}")
        return done


def report(title: str, timings: Timings) -> None:
    """p50/p95 of each side, and of each hooked side's paired difference from no hooks."""
    sides = list(timings)
    bare = timings[sides[0]]
    print(f"{title}, {len(bare)} rounds:")
    for name in sides:
        line = f"  {name:<18} {_p50_p95(timings[name])}"
        if name != sides[0]:
            line += "   overhead (paired) " + _spread(timings[name], bare)
        print(line)
    if len(sides) > 2:
        print(
            f"  {sides[2]} - this code (paired): " + _spread(timings[sides[2]], timings[sides[1]])
        )


def _spread(values: list[float], minus: list[float]) -> str:
    return _p50_p95([a - b for a, b in zip(values, minus, strict=True)])


def _p50_p95(values: list[float]) -> str:
    return f"p50 {ms(percentile(values, 50)):>7}  p95 {ms(percentile(values, 95)):>7}"


def timed_run(argv: list[str], root: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=root, env=env, capture_output=True, check=True)
    return time.perf_counter() - start


def load_line() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} cores)"
