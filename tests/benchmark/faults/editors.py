"""(d) Editors append lines to tracked notes (never staged) while commits happen in the same
clone: in "agents" rounds, agents run `memidx remember`, `memidx file-turn` and `memidx share`
at once (memidx's own plumbing commits); in "person" rounds, a person also runs a hooked
`git commit` of another note (pre-commit's checks run through the framework, which stashes
unstaged changes). Every line an editor wrote must be in its file, in order."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

from tests.benchmark.faults.lab import Lab, check, make_lab, sentence
from tests.benchmark.faults.tally import Tally
from tests.benchmark.fleet import MEMIDX, git
from tests.helpers import GIT_IDENTITY

EDITOR = """\
import pathlib, random, sys, time
path, prefix, seed, stop = pathlib.Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
rng = random.Random(seed)
n = 0
while n < 50 or not pathlib.Path(stop).exists():
    with path.open("a") as out:
        out.write(f"{prefix} line {n}\\n")
    n += 1
    time.sleep(rng.uniform(0.001, 0.008))
print(n)
"""


def run_editors(scratch: Path, seed: int, rounds: int) -> list[Tally]:
    """`rounds` rounds of each kind, alternating."""
    rng = random.Random(seed)
    tallies = {
        "agents": Tally(
            f"(d1) editors while agents remember/file/share, {rounds} rounds (seed {seed})"
        ),
        "person": Tally(f"(d2) editors while a person's hooked git commit runs (seed {seed})"),
    }
    lab = make_lab(scratch, scratch / "editors", rng, notes=2, turns=0)
    tracked = sorted(lab.notes)[:2]
    for n in range(2 * rounds):
        variant = "agents" if n % 2 == 0 else "person"
        tally = tallies[variant]
        tally.seen["editor lines lost"] += _one_round(lab, tracked, variant, rng, tally)
        tally.runs += 1
        tally.add("after the round", check(lab))
    return list(tallies.values())


def _one_round(lab: Lab, tracked: list[str], variant: str, rng: random.Random, tally: Tally) -> int:
    serial = lab.next()
    stop = lab.root.parent / f"stop-{serial}"
    before = {ref: (lab.root / ref).read_text() for ref in tracked}
    editors = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                EDITOR,
                str(lab.root / ref),
                f"r{serial} e{i}",
                str(rng.randrange(1 << 30)),
                str(stop),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for i, ref in enumerate(tracked)
    ]
    time.sleep(0.1)
    writers = _writers(lab, variant, rng)
    for proc, what in writers:
        out, err = proc.communicate()
        if proc.returncode != 0:
            lines = [line for line in err.splitlines() if "error" in line.lower()] or [err]
            name = "git commit" if what.startswith("git") else what
            detail = " | ".join(line.strip() for line in err.splitlines()[-4:])
            tally.saw(f"{name} failed: {lines[0].strip()[:110]}", f"round {serial}: {detail}")
        elif what == "remember":
            lab.notes.add(out.split()[0])
            tally.acknowledged += 1
        elif what == "file-turn":
            lab.records.add(out.split()[0])
            tally.acknowledged += 1
        elif what.startswith("git commit"):
            lab.notes.add(what.split()[-1])
            tally.acknowledged += 1
    stop.touch()
    lost = 0
    for i, (proc, ref) in enumerate(zip(editors, tracked, strict=True)):
        count = int(proc.communicate()[0])
        prefix = f"r{serial} e{i}"
        want = before[ref] + "".join(f"{prefix} line {i}\n" for i in range(count))
        have = (lab.root / ref).read_text()
        tally.acknowledged += count
        if have != want:
            lines = set(have.splitlines())
            missing = sum(1 for i in range(count) if f"{prefix} line {i}" not in lines)
            lost += missing
            shape = f"{missing} of {count} lines lost" if missing else "lines reordered or doubled"
            tally.lose(f"{variant} round {serial}: {shape} in {ref}", missing)
            (lab.root / ref).write_text(want)  # put them back so that later rounds count anew
    return lost


def _writers(lab: Lab, variant: str, rng: random.Random) -> list[tuple[subprocess.Popen[str], str]]:
    """The commits of one round, started together."""
    started: list[tuple[subprocess.Popen[str], str]] = []
    jobs: list[tuple[list[str], str | None, str]] = []
    for _ in range(2):
        n = lab.next()
        title = f"Editor round lesson {n}"
        jobs.append(([str(MEMIDX), "remember", "--title", title], sentence(rng, n), "remember"))
    jobs.append(([str(MEMIDX), "file-turn"], lab.turn(rng), "file-turn"))
    jobs.append(([str(MEMIDX), "share"], None, "share"))
    if variant == "person":
        n = lab.next()
        ref = lab.machine.note(f"person/note-{n}.md", f"Person lesson {n}", sentence(rng, n))
        git(lab.root, lab.env, "add", "--", ref)
        jobs.append(
            (["git", *GIT_IDENTITY, "commit", "-q", "-m", f"person {n}"], None, f"git commit {ref}")
        )
    for n, (argv, stdin, what) in enumerate(jobs):
        given = lab.root.parent / f"stdin-{lab.serial}-{n}"
        given.write_text(stdin or "")
        with given.open() as source:
            proc = subprocess.Popen(
                argv,
                cwd=lab.root,
                env=lab.env,
                stdin=source,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        started.append((proc, what))
    return started
