"""(a) kill -9 at a random moment of `memidx ingest`, `memidx embed`, `memidx file-turn`,
`memidx remember` and a hooked `git commit` (its whole process group: git, pre-commit and the
hooks). Before each run an editor appends a line to a tracked note it never stages. After each
run: what search answers before any repair, then the README's recovery and the checks. The
moment is a seeded fraction of the operation's calibrated duration."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.benchmark.faults.lab import (
    MARK,
    Lab,
    check,
    delete_index,
    make_lab,
    on_disk,
    sentence,
)
from tests.benchmark.faults.tally import Tally
from tests.benchmark.fleet import MEMIDX, git
from tests.helpers import GIT_IDENTITY

OPS = ("ingest", "embed", "file-turn", "remember", "commit")
SCRATCHPAD = "notes/scratchpad.md"  # tracked; the editor's unstaged lines go here
REBUILD_SHARE = 1 / 3  # of ingest runs that start from a deleted index


@dataclass(frozen=True, slots=True)
class Launch:
    """One operation ready to run: its command, stdin, and how to read what it acknowledged."""

    argv: list[str]
    stdin: str | None
    acknowledged: Callable[[str], str | None]  # stdout -> the id or ref it acknowledged
    label: str
    op: str


def run_kills(scratch: Path, seed: int, kills: int) -> Tally:
    rng = random.Random(seed)
    tally = Tally(
        f"(a) kill -9 during ingest, embed, file-turn, remember, hooked git commit (seed {seed})"
    )
    lab = make_lab(scratch, scratch / "kills", rng, notes=20, turns=10)
    lab.machine.write(SCRATCHPAD, f"# Scratchpad\n\nNotes of the {MARK} editor.\n")
    lab.machine.commit("scratchpad")
    edits = (lab.root / SCRATCHPAD).read_text()
    calibrated = _calibrate(lab, rng)
    tally.seen.update({f"calibrated {op}: {t:.2f} s" for op, t in calibrated.items()})
    order: list[str] = []
    leftovers = _untracked_notes(lab)
    for n in range(1, kills + 1):
        if not order:
            order = list(OPS)
            rng.shuffle(order)
        op = order.pop()
        edits += f"edit {n} by the editor\n"
        with (lab.root / SCRATCHPAD).open("a") as out:
            out.write(f"edit {n} by the editor\n")
        launch = _prepare(lab, op, rng)
        delay = rng.uniform(0.0, 1.2) * calibrated[op]
        killed, out = _kill_after(launch, lab, delay)
        where = (
            f"run {n} ({launch.label}, kill at {delay:.2f} s{'' if killed else ', finished first'})"
        )
        tally.runs += 1
        tally.seen[f"{op}: {'killed' if killed else 'finished before the signal'}"] += 1
        _acknowledge(lab, launch, out, killed=killed, tally=tally)
        tally.saw(f"{op}: before recovery, search {_probe(lab)}", f"run {n}")
        tally.add(where, check(lab))
        for ref in sorted(_untracked_notes(lab) - leftovers):
            tally.saw(f"{op}: left an uncommitted note file (status lists it)", f"run {n}: {ref}")
            leftovers.add(ref)
        _edits_survived(lab, edits, where, tally)
    tally.acknowledged = len(lab.records) + len(lab.notes) + len(edits.splitlines())
    return tally


def _edits_survived(lab: Lab, edits: str, where: str, tally: Tally) -> None:
    """Every line the editor appended is still in the file (else count and put them back)."""
    now = (lab.root / SCRATCHPAD).read_text()
    if now != edits:
        missing = len(set(edits.splitlines()) - set(now.splitlines()))
        tally.lose(f"{where}: {missing} editor lines lost from {SCRATCHPAD}", missing)
        tally.manual.append(f"{where}: restore {SCRATCHPAD} (pre-commit's patch file)")
        (lab.root / SCRATCHPAD).write_text(edits)


def _acknowledge(lab: Lab, launch: Launch, out: str, *, killed: bool, tally: Tally) -> None:
    op = launch.op
    item = launch.acknowledged(out)
    if op == "commit":
        ref = launch.label.split()[-1]
        listed = git(lab.root, lab.env, "ls-tree", "--name-only", "HEAD", "--", ref).out.strip()
        item = ref if listed else None  # committed (the checks then want it indexed)
        if killed and item:
            tally.seen["commit: killed after git made the commit"] += 1
    if item is None:
        return
    if killed:
        tally.seen[f"{op}: killed after it printed what it acknowledged"] += 1
    (lab.notes if item.startswith("notes/") else lab.records).add(item)


def _prepare(lab: Lab, op: str, rng: random.Random) -> Launch:
    memidx = str(MEMIDX)
    if op == "ingest":
        rebuild = rng.random() < REBUILD_SHARE
        if rebuild:
            delete_index(lab.root)
        label = "ingest from a deleted index" if rebuild else "ingest"
        return Launch([memidx, "ingest"], None, lambda _: None, label, op)
    if op == "embed":
        return Launch([memidx, "embed"], None, lambda _: None, "embed", op)
    if op == "file-turn":
        return Launch([memidx, "file-turn"], lab.turn(rng), _first_word("turn-"), "file-turn", op)
    n = lab.next()
    if op == "remember":
        argv = [memidx, "remember", "--title", f"Kill lesson {n}", "--tags", MARK]
        return Launch(argv, sentence(rng, n) + "\n", _first_word("notes/"), "remember", op)
    ref = lab.machine.note(f"kill/commit-{n}.md", f"Committed lesson {n}", sentence(rng, n))
    git(lab.root, lab.env, "add", "--", ref)
    argv = ["git", *GIT_IDENTITY, "commit", "-q", "-m", f"lesson {n}"]
    return Launch(argv, None, lambda _: None, f"git commit {ref}", op)


def _first_word(prefix: str) -> Callable[[str], str | None]:
    def read(out: str) -> str | None:
        words = out.split()
        return words[0] if words and words[0].startswith(prefix) else None

    return read


def _kill_after(launch: Launch, lab: Lab, delay: float) -> tuple[bool, str]:
    """Run the operation in its own process group and SIGKILL the group after `delay` seconds;
    (whether it was still running, what it printed on stdout)."""
    proc = subprocess.Popen(
        launch.argv,
        cwd=lab.root,
        env=lab.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(launch.stdin, timeout=max(delay, 0.001))
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):  # it ended just now
            os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return proc.returncode == -signal.SIGKILL, out
    return False, out


def _probe(lab: Lab) -> str:
    """What an agent's search answers right after the crash, before any repair: every note at
    HEAD and every record on disk holds MARK, so a complete answer has them all."""
    listing = git(lab.root, lab.env, "ls-tree", "-r", "--name-only", "HEAD", "notes/").out
    notes = [p for p in listing.splitlines() if p.endswith(".md") and p != "notes/welcome.md"]
    want = len(notes) + len(on_disk(lab.root))
    done = lab.run("search", "--json", "--mode", "bm25", "-k", "100000", MARK)
    report = done.last_json()
    if done.code != 0 or report is None:
        return f"fails (exit {done.code}), names the problem"
    got, warned = int(report["count"]), bool(report["warnings"])
    if got == want:
        return "answers completely" + (" (with a warning)" if warned else "")
    shape = "an empty answer" if got == 0 else f"{'fewer' if got < want else 'more'} hits"
    return f"gives {shape} {'with a warning' if warned else 'and exit 0, no warning'}"


def _untracked_notes(lab: Lab) -> set[str]:
    """Note files git does not track (a killed remember may leave the note it was writing)."""
    listing = git(lab.root, lab.env, "status", "--porcelain", "-uall", "--", "notes/").out
    return {
        line[3:]
        for line in listing.splitlines()
        if line.startswith("?? ") and line.endswith(".md") and "/haystack/" not in line
    }


def _calibrate(lab: Lab, rng: random.Random) -> dict[str, float]:
    """Each operation's duration once, unkilled (ingest from a deleted index; embed of the
    few chunks a run adds), so kill moments scale with this machine's speed."""
    found: dict[str, float] = {}
    for op in ("ingest", "embed", *OPS[2:], "embed"):
        launch = _prepare(lab, "ingest" if op == "ingest" else op, rng)
        if op == "ingest":
            delete_index(lab.root)
        start = time.perf_counter()
        _, out = _kill_after(launch, lab, 600.0)
        found[op] = time.perf_counter() - start
        _acknowledge(lab, launch, out, killed=False, tally=Tally(""))
    return found
