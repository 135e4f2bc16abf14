"""What a person's one-note `git commit` costs with memidx's hooks, this code against a baseline
revision's whole hook setup (and no hooks), in a small generated memory: sides taking turns
commit by commit in the same run, so the shared machine's load hits them alike. Needs no data
and takes about a minute:

    .venv-dev/bin/python -m tests.benchmark.commit_checks --baseline main --rounds 9

The paired difference `baseline - this code` is what this code saves per commit."""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

from tests.benchmark.hook_sides import Side
from tests.benchmark.hooks import Bench, Timings, load_line, report, timed_run
from tests.machines import hook_env

TOPICS = (
    "the build cache is invalidated whenever the lockfile changes",
    "a file lock is held by another process, so the write waits",
    "the container runs out of memory when the test suite runs in parallel",
    "the migration takes the table lock for the whole copy",
    "a rebase keeps the author date unless the committer date is asked for",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--baseline", default="main", help="the revision to compare with")
    parser.add_argument("--rounds", type=int, default=9, help="commits per side (>= 7)")
    parser.add_argument("--notes", type=int, default=60, help="notes in the generated memory")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memidx-commit-checks-") as scratch:
        root = Path(scratch) / "memory"
        write_memory(root, args.notes, 2 * args.rounds * 3 + 4)
        env = hook_env(Path(scratch) / "pre-commit-home")
        sides = Path(scratch) / "sides"
        sides.mkdir()
        bench = Bench(root, env, sides)
        bench.prepare(args.baseline)
        bench.pick_notes(args.rounds + 1)
        print(bench.describe(), flush=True)
        report("the pre-commit hook alone, one note staged", pre_commit_hook(bench, args.rounds))
        report("commit of one note (pre-commit's checks, commit-msg, post-commit)",
                bench.commits(args.rounds, True))  # fmt: skip
        print(f"index in step after: {bench.in_step()}; {load_line()}")
    return 0


def pre_commit_hook(bench: Bench, rounds: int) -> Timings:
    """Each side's .git/hooks/pre-commit run as git runs it (from the top of the work tree), on
    the same staged edit, `rounds` times; nothing is committed."""
    staged = bench.edit(next(bench.notes), "the pre-commit hook rounds")
    bench.git("add", staged)

    def run(side: Side, _: int) -> float:
        if side.hooks is None:
            hook = bench.root / ".git" / "hooks" / "pre-commit"
        elif side.syncs:
            hook = Path(side.hooks) / "pre-commit"
        else:
            return timed_run(["true"], bench.root, side.env)  # no hooks: nothing runs
        return timed_run(["sh", str(hook)], bench.root, side.env)

    timings = bench.rounds(rounds, run)
    bench.git("reset", "-q", "HEAD", "--", staged)
    bench.git("checkout", "-q", "--", staged)
    return timings


def write_memory(root: Path, notes: int, spare: int) -> None:
    """A repository of `notes` short English notes (and `spare` more, one per commit timed),
    committed once, without hooks."""
    folder = root / "notes"
    folder.mkdir(parents=True)
    for n in range(notes + spare):
        topic = TOPICS[n % len(TOPICS)]
        (folder / f"note-{n:03}.md").write_text(
            f"---\ntitle: Note {n}\n---\n# Note {n}\n\nWe found that {topic}. "
            f"This is what note number {n} of the benchmark keeps for the team.\n"
        )
    (root / ".gitignore").write_text(".memidx/\n")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "memory"]):
        subprocess.run(
            ["git", "-c", "user.name=bench", "-c", "user.email=bench@memidx.invalid",
             "-c", "core.hooksPath=/dev/null", *args],
            cwd=root, check=True, capture_output=True,
        )  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
