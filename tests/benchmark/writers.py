"""Many writers through one remote (issue #12): clones of one bare remote, each in its own
process, file 1-3 turns, sometimes remember a note, and run `memidx share` (what `make sync`
runs), over and over for a fixed time; then every clone shares until nothing changes. Prints
what was acknowledged against what every clone's index and the remote hold, merge conflicts,
syncs that needed a person, share retries, each index against a fresh rebuild, throughput, and
the growth of segments and commits per clone. Figures, not assertions.

    python -m tests.benchmark.writers [--seconds 180] [--clones 10] [--seed 1]
    make bench ONLY=writers   (BENCH_WRITERS_SECONDS=30 BENCH_WRITERS_CLONES=4 shorten it)
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from tests.benchmark import writers_report
from tests.benchmark.fleet import Done, bench_env, git, memidx
from tests.machines import clone, make_template

SECONDS, CLONES, SEED = 180.0, 10, 1
REMEMBER_SHARE = 0.3  # of iterations that also remember a note
QUIESCE_ROUNDS = 6
SUBJECTS = (
    "the build cache", "the sqlite index", "the docker layer", "the deploy script",
    "the test runner", "the retry loop", "the nightly backup", "the schema migration",
)  # fmt: skip
VERBS = (
    "breaks", "slows down", "needs pruning", "times out", "locks up", "recovers",
    "fills the disk", "loses its lock",
)  # fmt: skip
WHEN = (
    "after an upgrade", "under parallel writers", "on a cold start", "when the disk is full",
    "after a merge", "on the night build", "behind the proxy", "on a fresh clone",
)  # fmt: skip
WORDS = ("cache", "sqlite", "docker", "deploy", "runner", "retry", "backup", "schema")


@dataclass(frozen=True, slots=True)
class Job:
    """What one writer process is asked to do."""

    index: int
    root: Path
    env: dict[str, str]
    start_at: float  # time.time() at which every writer starts, together
    seconds: float
    seed: int


@dataclass(frozen=True, slots=True)
class Share:
    """One `memidx share`: exit status, pulls and pushes it ran, what stopped it."""

    code: int
    attempts: int
    seconds: float
    outcome: str  # ok, person, gave up, error
    conflict: bool
    message: str

    @classmethod
    def of(cls, done: Done) -> Share:
        report = done.last_json() or {}
        attempts = report.get("attempts")
        text = done.out + done.err
        if done.code == 0:
            outcome = "ok"
        elif "a person must resolve" in done.err:
            outcome = "person"
        elif "kept moving" in done.err:
            outcome = "gave up"
        else:
            outcome = "error"
        return cls(
            done.code,
            attempts if isinstance(attempts, int) else 0,
            done.seconds,
            outcome,
            "CONFLICT" in text,
            "" if done.code == 0 else done.error(),
        )


@dataclass(slots=True)
class Writer:
    """What one writer did and what memidx acknowledged to it."""

    index: int
    records: list[str] = field(default_factory=list[str])
    notes: list[str] = field(default_factory=list[str])
    shares: list[Share] = field(default_factory=list[Share])
    failures: list[str] = field(default_factory=list[str])
    seconds: dict[str, list[float]] = field(default_factory=dict[str, list[float]])
    iterations: int = 0
    elapsed: float = 0.0

    def timed(self, what: str, done: Done) -> Done:
        self.seconds.setdefault(what, []).append(done.seconds)
        if done.code != 0 and what != "share":
            self.failures.append(f"{what}: exit {done.code}: {done.error()}")
        return done


def write_for(job: Job) -> Writer:
    """One writer's loop (runs in its own process)."""
    rng = random.Random(f"{job.seed}/{job.index}")
    result = Writer(job.index)
    time.sleep(max(0.0, job.start_at - time.time()))
    started = time.time()
    # at least one round: a loaded machine may start this process after the window closed
    while result.iterations == 0 or time.time() < job.start_at + job.seconds:
        result.iterations += 1
        for turn in range(rng.randint(1, 3)):
            _file_turn(job, rng, result, turn)
        if rng.random() < REMEMBER_SHARE:
            _remember(job, rng, result)
        share = memidx(job.root, job.env, "share", "--json")
        result.shares.append(Share.of(result.timed("share", share)))
    result.elapsed = time.time() - started
    return result


def _file_turn(job: Job, rng: random.Random, result: Writer, turn: int) -> None:
    step = result.iterations
    payload = {
        "user": f"writer {job.index} iteration {step} turn {turn}: why does "
        f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)}?",
        "assistant": f"because {rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(WHEN)}",
        "agent": f"writer-{job.index}",
        "session": f"w{job.index}-i{step}",
        "tags": ["bench"],
    }
    done = memidx(job.root, job.env, "file-turn", stdin=json.dumps(payload))
    if result.timed("file-turn", done).code == 0 and done.out.split():
        result.records.append(done.out.split()[0])  # the id it acknowledged


def _remember(job: Job, rng: random.Random, result: Writer) -> None:
    step = result.iterations
    body = (
        f"Writer {job.index} learned in iteration {step} that {rng.choice(SUBJECTS)} "
        f"{rng.choice(VERBS)} {rng.choice(WHEN)}; check it before you start a task.\n"
    )
    title = f"Writer {job.index} lesson {step}"
    args = ("remember", "--title", title, "--tags", "bench", "--json")
    done = memidx(job.root, job.env, *args, stdin=body)
    if result.timed("remember", done).code == 0:
        result.notes.append(str(json.loads(done.out)["ref"]))


@dataclass(slots=True)
class Quiesced:
    """The rounds of `memidx share` on every clone after the writers stopped."""

    rounds: int = 0
    converged: bool = False
    shares: list[Share] = field(default_factory=list[Share])


def quiesce(roots: Sequence[Path], envs: Sequence[dict[str, str]], remote: Path) -> Quiesced:
    """Every clone shares, round after round, until a round changes no HEAD and every clone
    stands at the remote's HEAD (at most QUIESCE_ROUNDS rounds)."""
    result = Quiesced()
    for result.rounds in range(1, QUIESCE_ROUNDS + 1):
        before = [
            git(r, e, "rev-parse", "HEAD").out.strip() for r, e in zip(roots, envs, strict=True)
        ]
        result.shares += [
            Share.of(memidx(r, e, "share", "--json")) for r, e in zip(roots, envs, strict=True)
        ]
        after = [
            git(r, e, "rev-parse", "HEAD").out.strip() for r, e in zip(roots, envs, strict=True)
        ]
        remote_head = git(
            remote, envs[0], "--git-dir", str(remote), "rev-parse", "main"
        ).out.strip()
        if before == after and set(after) == {remote_head}:
            result.converged = True
            break
    return result


def simulate(scratch: Path, clones: int, seconds: float, seed: int) -> None:
    """Set up the clones, run the writers, quiesce, check and print."""
    base = bench_env(scratch)
    remote = make_template(scratch, base)
    envs = [
        bench_env(
            scratch,
            GIT_AUTHOR_NAME=f"writer-{i}",
            GIT_COMMITTER_NAME=f"writer-{i}",
            GIT_AUTHOR_EMAIL=f"w{i}@memidx.invalid",
            GIT_COMMITTER_EMAIL=f"w{i}@memidx.invalid",
        )
        for i in range(clones)
    ]
    started = time.perf_counter()
    roots = [clone(remote, scratch / f"c{i}", envs[i]).root for i in range(clones)]
    print(
        f"{clones} clones of one bare remote set up in {time.perf_counter() - started:.0f} s; "
        f"writing for {seconds:.0f} s (seed {seed}, {os.cpu_count()} cores)",
        flush=True,
    )
    start_at = time.time() + 3.0  # every process is spawned by then
    jobs = [Job(i, roots[i], envs[i], start_at, seconds, seed) for i in range(clones)]
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=clones, mp_context=spawn) as pool:
        writers = list(pool.map(write_for, jobs))
    started = time.perf_counter()
    quiesced = quiesce(roots, envs, remote)
    print(f"quiesced in {time.perf_counter() - started:.0f} s", flush=True)
    writers_report.report(
        writers,
        quiesced=quiesced,
        roots=roots,
        envs=envs,
        remote=remote,
        scratch=scratch / "compare",
        words=WORDS,
    )


def _setting(args: argparse.Namespace, name: str, variable: str, default: float) -> float:
    value = getattr(args, name, None)
    if value is None:
        value = os.environ.get(variable) or default
    return float(value)


def run(args: argparse.Namespace) -> None:
    """The bench section; --writers-seconds/--writers-clones/--writers-seed when the runner has
    them, else BENCH_WRITERS_SECONDS, BENCH_WRITERS_CLONES, BENCH_WRITERS_SEED."""
    seconds = _setting(args, "writers_seconds", "BENCH_WRITERS_SECONDS", SECONDS)
    clones = int(_setting(args, "writers_clones", "BENCH_WRITERS_CLONES", CLONES))
    seed = int(_setting(args, "writers_seed", "BENCH_WRITERS_SEED", SEED))
    with tempfile.TemporaryDirectory(prefix="memidx-writers-") as scratch:
        simulate(Path(scratch), clones, seconds, seed)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmark.writers", description=__doc__)
    parser.add_argument(
        "--seconds", dest="writers_seconds", type=float, help=f"default {SECONDS:.0f}"
    )
    parser.add_argument("--clones", dest="writers_clones", type=int, help=f"default {CLONES}")
    parser.add_argument("--seed", dest="writers_seed", type=int, help=f"default {SEED}")
    run(parser.parse_args(argv))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
