"""The clone a fault campaign damages: set up as `make install` does with notes, records and
vectors; the recovery the README prescribes; and the checks that follow every fault."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from memidx.config import load_config
from memidx.haystack.filing import Haystack
from memidx.haystack.frames import scan_file
from tests.benchmark.fleet import Done, bench_env, git, indexed, memidx, status_problem
from tests.benchmark.workspace import MODELS
from tests.machines import Machine, clone, make_template

MARK = "campaign"  # a word in every note and record the campaign writes
TOPICS = (
    "the build cache", "the sqlite index", "a docker layer", "the deploy script",
    "the test runner", "a retry loop", "the nightly backup", "a schema migration",
)  # fmt: skip
PROBLEMS = (
    "breaks after an upgrade", "slows down under parallel writers", "times out on a cold start",
    "fills the disk", "loses its lock after a merge",
)  # fmt: skip
GIT_LOCKS = ("index.lock", "HEAD.lock", "refs/heads/main.lock", "ORIG_HEAD.lock")


def sentence(rng: random.Random, n: int) -> str:
    """English prose for a note or a turn (the English check must pass it)."""
    return (
        f"In {MARK} run {n} we saw that {rng.choice(TOPICS)} {rng.choice(PROBLEMS)}; "
        f"the fix was to check {rng.choice(TOPICS)} before starting the task."
    )


@dataclass(slots=True)
class Lab:
    """One clone and what memidx acknowledged in it (record ids, note refs)."""

    machine: Machine
    env: dict[str, str]
    records: set[str] = field(default_factory=set[str])
    notes: set[str] = field(default_factory=set[str])
    serial: int = 0

    @property
    def root(self) -> Path:
        return self.machine.root

    def next(self) -> int:
        self.serial += 1
        return self.serial

    def run(self, *args: str, stdin: str | None = None) -> Done:
        return memidx(self.root, self.env, *args, stdin=stdin)

    def turn(self, rng: random.Random) -> str:
        """The JSON of a new turn for `memidx file-turn`."""
        n = self.next()
        text = {"user": f"{MARK} question {n}", "assistant": sentence(rng, n), "session": f"s{n}"}
        return json.dumps(text)


def make_lab(scratch: Path, where: Path, rng: random.Random, *, notes: int, turns: int) -> Lab:
    """A clone of a new bare remote at `where` with `notes` committed notes (through the hooks)
    and `turns` filed records; vectors are made only by `embed()`."""
    env = bench_env(scratch, MEMIDX_MODELS_DIR=str(MODELS))
    remote = make_template(scratch / f"{where.name}-origin", env)
    lab = Lab(clone(remote, where, env), env)
    for _ in range(notes):
        n = lab.next()
        lab.notes.add(lab.machine.note(f"seed/note-{n}.md", f"Seed note {n}", sentence(rng, n)))
    lab.machine.commit("seed notes")
    lab.notes.add("notes/welcome.md")
    haystack = Haystack(load_config(lab.root, env={}))
    try:
        for _ in range(turns):
            n = lab.next()
            lab.records.add(haystack.file("turn", sentence(rng, n), session=f"seed-{n}").id)
    finally:
        haystack.close()
    return lab


@dataclass(slots=True)
class Check:
    """What a check after a fault found (empty lists: nothing wrong)."""

    lost_records: list[str] = field(default_factory=list[str])  # acknowledged, not indexed
    lost_on_disk: list[str] = field(default_factory=list[str])  # acknowledged, in no segment
    lost_notes: list[str] = field(default_factory=list[str])  # acknowledged, not indexed
    unusable: list[str] = field(default_factory=list[str])
    manual: list[str] = field(default_factory=list[str])  # steps beyond the README
    recovery: list[str] = field(default_factory=list[str])  # README steps that were needed


def recover(lab: Lab) -> list[str]:
    """The README's way back after a crash: `memidx sync`; `memidx ingest` when sync fails or
    status says the index is unusable. Returns the steps that were needed beyond sync."""
    steps: list[str] = []
    synced = lab.run("sync")
    if synced.code != 0 or index_problem(lab):
        steps.append(f"ingest (sync exit {synced.code}: {synced.error()[:100]})")
        lab.run("ingest")
    return steps


def index_problem(lab: Lab) -> str | None:
    return status_problem(lab.run("status", "--json").last_json())


def check(lab: Lab) -> Check:
    """Recover as the README says, then look: acknowledged records and notes indexed and on
    disk, the index usable (search exits 0, status names no problem and no drift), no lock
    left behind that only a person can remove."""
    found = Check(recovery=recover(lab))
    found.manual += _stale_locks(lab)
    status = lab.run("status", "--json")
    report = status.last_json() or {}
    problem = status_problem(report)
    search = lab.run("search", "--json", "--mode", "bm25", "-k", "5", MARK)
    if problem or search.code != 0:
        found.unusable.append(f"problem {problem!r}; search exit {search.code}: {search.error()}")
    elif status.code != 0:
        drift, changed = report.get("drift"), report.get("segments_changed")
        found.unusable.append(f"status exit 1 after recovery: drift {drift}, segments {changed}")
    try:
        ids, refs = indexed(lab.root / ".memidx" / "index.sqlite")
    except sqlite3.DatabaseError as exc:
        found.unusable.append(f"index unreadable: {exc}")
        ids, refs = set[str](), set[str]()
    found.lost_records = sorted(lab.records - ids)
    found.lost_on_disk = sorted(lab.records - on_disk(lab.root))
    found.lost_notes = sorted(lab.notes - refs)
    if found.unusable:  # a person's way out, so that later faults start from a usable index
        found.manual.append("rm .memidx/index.sqlite*; memidx ingest")
        delete_index(lab.root)
        lab.run("ingest")
    return found


def delete_index(root: Path) -> None:
    """`rm -rf .memidx/index.sqlite*`: the index, its journal and its vector files."""
    for path in (root / ".memidx").glob("index.sqlite*"):
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()


def on_disk(root: Path) -> set[str]:
    """Ids of the complete records in the clone's segments."""
    folder = root / "notes" / "haystack"
    return {
        located.record.id for path in folder.rglob("*.krd") for located in scan_file(path).records
    }


def _stale_locks(lab: Lab) -> list[str]:
    """git lock files no process holds any more (a killed git or memidx left them): git and
    memidx refuse to commit until a person removes them. They are removed here, and counted."""
    git_dir = lab.root / ".git"
    found: list[str] = []
    for name in GIT_LOCKS:
        path = git_dir / name
        if path.exists():
            found.append(f"rm .git/{name}")
            path.unlink()
    if git(lab.root, lab.env, "status", "--porcelain").code != 0:
        found.append("git status fails")
    return found
