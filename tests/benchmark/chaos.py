"""Two or three machines at once, a demanding user on each: clones of one bare remote, each
running a seeded random mix of what agents and a person do (several `remember`s at once,
`file-turn`, `archive-transcript`, a hand-made commit, `git pull --rebase`, `git pull`,
`git push`, `memidx share`, `memidx sync`, `memidx forget`, a branch switch), while the
person keeps a staged and an unstaged edit of their own. After every operation the person's
work must be as they left it; at the end, after every clone shared until nothing changed:
every note and turn memidx acknowledged (exit 0) and did not forget is in the remote's HEAD
and every clone's index, no record is in the remote twice, `memidx status` is clean in every
clone, and each index searches as a fresh `memidx ingest` does (30 queries). Figures printed,
and the file that lists the operations in the order they ran. A seed fixes each actor's own
sequence of operations, not how the nine actors interleave (threads, git's waits, the load).
The person settles a conflict before anything else and commits their edit when it is in the
way (tests/benchmark/chaos_person.py); broken promises are printed once per cause, by kind.

    python -m tests.benchmark.chaos [--ops 200] [--clones 3] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from tests.benchmark.chaos_person import check_person, home, persist, settle
from tests.benchmark.fleet import bench_env, git, memidx
from tests.benchmark.writers import SUBJECTS, VERBS, WHEN
from tests.machines import clone, make_template

AGENT_OPS = (
    "remember", "remember3", "file-turn", "file-turn", "archive", "share", "share", "sync",
    "forget",
)  # fmt: skip
PERSON_OPS = ("person-commit", "pull-rebase", "pull-merge", "push", "switch", "person-stage")
ACTORS = 3  # per clone at once: two agents and the person
QUERIES = tuple(f"{s} {v}" for s in SUBJECTS for v in VERBS[:4])[:30]
# each actor's own generator, seeded from the seed alone (one per clone drawn by three threads)
ACTOR = threading.local()
ORDER: list[str] = []  # the operations as they started and ended, across every clone
ORDER_LOCK = threading.Lock()
STARTED = time.monotonic()


def rng_of(m: Machine) -> random.Random:
    """The running actor's generator (the clone's outside an actor: the final checks)."""
    return getattr(ACTOR, "rng", m.rng)


def logged(m: Machine, actor: int, op: str, what: str) -> None:
    with ORDER_LOCK:
        ORDER.append(f"{time.monotonic() - STARTED:9.3f} c{m.index} a{actor} #{m.step} {op} {what}")


@dataclass(slots=True)
class Machine:
    """One clone and what memidx acknowledged in it."""

    index: int
    root: Path
    env: dict[str, str]
    rng: random.Random
    seed: int
    notes: set[str] = field(default_factory=set[str])
    forgotten: set[str] = field(default_factory=set[str])
    records: set[str] = field(default_factory=set[str])
    ops: dict[str, int] = field(default_factory=dict[str, int])
    failures: list[str] = field(default_factory=list[str])
    broken: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])  # kind, what
    settled: dict[str, int] = field(default_factory=dict[str, int])  # the person's habits
    staged: str = ""  # what the person staged of their wip note
    unstaged: str = ""  # what their work tree holds of it
    step: int = 0
    titles: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def fail(self, what: str, text: str) -> None:
        self.failures.append(f"c{self.index} #{self.step} {what}: {text.strip()[-300:]}")
        ACTOR.failed = getattr(ACTOR, "failed", 0) + 1  # this actor's: the others fail at once


def wip_path(m: Machine) -> str:
    return f"notes/person-{m.index}.md"


def body(m: Machine, what: str) -> str:
    rng = rng_of(m)
    return (
        f"Machine {m.index} {what} at step {m.step}: {rng.choice(SUBJECTS)} "
        f"{rng.choice(VERBS)} {rng.choice(WHEN)}; check it before you start.\n"
    )


def remember(m: Machine, n: int) -> None:
    def one(k: int) -> None:
        title = f"Machine {m.index} lesson {first} part {k}"
        done = memidx(m.root, m.env, "remember", "--title", title, "--json", stdin=text[k])
        if done.code == 0:
            said = done.last_json() or {}
            with m.lock:
                m.notes.add(str(said["ref"]))
            logged(m, actor, "remember", f"{said['ref']} commit {said.get('commit')}")
        else:
            errors[k] = done.err

    with m.lock:
        m.titles += 1
        first = m.titles
    actor = getattr(ACTOR, "index", -1)
    text = [body(m, f"learned {k}") for k in range(n)]
    errors: dict[int, str] = {}  # failed in the actor's own thread: its `failed` mark counts
    threads = [threading.Thread(target=one, args=(k,)) for k in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for k in sorted(errors):
        m.fail("remember", errors[k])


def file_turn(m: Machine) -> None:
    payload = {"user": body(m, "asked"), "assistant": body(m, "answered"),
               "agent": f"agent-{m.index}", "session": f"s{m.index}-{m.step // 10}"}  # fmt: skip
    done = memidx(m.root, m.env, "file-turn", "--json", stdin=json.dumps(payload))
    if done.code == 0:
        m.records.add(str((done.last_json() or {})["id"]))
    else:
        m.fail("file-turn", done.err)


def archive(m: Machine) -> None:
    text = "".join(body(m, f"transcript line {k}") for k in range(5))
    args = ("archive-transcript", "--agent", f"agent-{m.index}", "--json", "-")
    done = memidx(m.root, m.env, *args, stdin=text)
    if done.code == 0:
        m.records.add(str((done.last_json() or {})["id"]))
    else:
        m.fail("archive", done.err)


def person_stage(m: Machine) -> None:
    """The person writes their wip note, stages it, and edits it again without staging."""
    path = m.root / wip_path(m)
    m.staged = f"---\ntitle: Person {m.index} draft\n---\n\n{body(m, 'drafted')}"
    path.write_text(m.staged)
    git(m.root, m.env, "add", wip_path(m))
    m.unstaged = m.staged + body(m, "kept editing")
    path.write_text(m.unstaged)


def person_commit(m: Machine) -> None:
    """The person commits what they staged (their wip note only), the edit stays unstaged."""
    if not m.staged:
        person_stage(m)
        return
    done = git(m.root, m.env, "commit", "-q", "-m", f"person {m.index} step {m.step}")
    if done.code != 0:
        m.fail("person-commit", done.out + done.err)


def forget(m: Machine) -> None:
    with m.lock:
        live = sorted(m.notes - m.forgotten)
    if not live:
        return
    ref = rng_of(m).choice(live)
    done = memidx(m.root, m.env, "forget", "--json", ref)
    if done.code == 0:
        m.forgotten.add(ref)
        commit = (done.last_json() or {}).get("commit")  # None: not committed, only deleted
        logged(m, getattr(ACTOR, "index", -1), "forget", f"{ref} commit {commit}")
    else:
        m.fail("forget", done.err)


def switch(m: Machine) -> None:
    """To an older commit on a side branch, a turn filed there, back, and merge it (persist)."""
    side = f"side-{m.step}-{time.monotonic_ns()}"
    done = persist(m, rng_of(m), wip_path(m), "switch", "-q", "-c", side, "HEAD~1")
    if done.code != 0:
        m.fail("switch", done.err)
        return
    file_turn(m)
    # what the agents committed there meanwhile comes back with the branch (`-d`, not `-D`)
    back = (("switch", "-q", "main"), ("merge", "-q", "--no-edit", side), ("branch", "-d", side))
    for args in back:
        done = persist(m, rng_of(m), wip_path(m), *args)
        if done.code != 0:
            m.fail("switch back", done.err)
            break  # still on the side branch, or it is unmerged: the person's next op goes home


COMMANDS = {
    "pull-rebase": ("git", "pull", "-q", "--rebase", "--autostash"),
    "pull-merge": ("git", "pull", "-q", "--no-rebase", "--autostash", "--no-edit"),
    "push": ("git", "push", "-q", "origin", "HEAD:main"),  # refused when behind: not a failure
    "share": ("memidx", "share", "--json"),
    "sync": ("memidx", "sync"),
}


def step(m: Machine, op: str) -> None:
    if command := COMMANDS.get(op):
        done = (git if command[0] == "git" else memidx)(m.root, m.env, *command[1:])
        if done.code != 0 and op != "push":
            m.fail(op, done.out + done.err)
        if op.startswith("pull"):
            settle(m, rng_of(m))  # the conflict the pull stopped on, before anything else
        return
    {"remember": lambda: remember(m, 1), "remember3": lambda: remember(m, 3),
     "file-turn": lambda: file_turn(m), "archive": lambda: archive(m),
     "person-stage": lambda: person_stage(m), "person-commit": lambda: person_commit(m),
     "forget": lambda: forget(m), "switch": lambda: switch(m)}[op]()  # fmt: skip


def drive(m: Machine, ops: int, actor: int) -> None:
    rng = random.Random(f"{m.seed}/{m.index}/{actor}")  # the operations: the seed's alone
    ACTOR.rng = random.Random(f"{m.seed}/{m.index}/{actor}/words")  # forget draws as it finds
    ACTOR.index = actor
    last = ""
    for _ in range(ops // ACTORS):
        with m.lock:
            m.step += 1
        op = rng.choice(PERSON_OPS if actor == 0 else AGENT_OPS)
        with m.lock:
            m.ops[op] = m.ops.get(op, 0) + 1
        if actor == 0:
            check_person(m, wip_path(m), last)
            home(m, rng_of(m), wip_path(m))  # a person never starts on a stopped rebase
            check_person(m, wip_path(m), "")
        logged(m, actor, op, "starts")
        failed = getattr(ACTOR, "failed", 0)  # the clone's count moves with the other actors
        step(m, op)
        logged(m, actor, op, "failed" if getattr(ACTOR, "failed", 0) > failed else "ends")
        if actor == 0:
            check_person(
                m, wip_path(m), ""
            )  # git's own autostash may unstage: only memidx is judged
            last = op


def simulate(scratch: Path, clones: int, ops: int, seed: int) -> int:
    base = bench_env(scratch)
    remote = make_template(scratch, base)
    machines: list[Machine] = []
    for i in range(clones):
        who = {"GIT_AUTHOR_NAME": f"m{i}", "GIT_COMMITTER_NAME": f"m{i}"}
        env = bench_env(scratch, **who)
        root = clone(remote, scratch / f"c{i}", env).root
        machines.append(Machine(i, root, env, random.Random(f"{seed}/{i}"), seed))
    started = time.perf_counter()
    everyone = [m for m in machines for _ in range(ACTORS)]
    actors = [a for _ in machines for a in range(ACTORS)]
    with ThreadPoolExecutor(max_workers=len(actors)) as pool:
        list(pool.map(drive, everyone, [ops] * len(actors), actors))
    driven = time.perf_counter() - started
    from tests.benchmark.chaos_finish import finish, report  # which imports this module

    broken = [b for m in machines for b in m.broken] + finish(machines, remote)
    total = sum(sum(m.ops.values()) for m in machines)
    print(f"{total} operations on {clones} clones in {driven:.0f} s (seed {seed}); "
          f"{time.perf_counter() - started:.0f} s with the checks")  # fmt: skip
    for m in machines:
        print(f"c{m.index}: {dict(sorted(m.ops.items()))}; {len(m.notes)} notes, "
              f"{len(m.forgotten)} forgotten, {len(m.records)} records acknowledged; the "
              f"person: {dict(sorted(m.settled.items()))}")  # fmt: skip
    failures = [f for m in machines for f in m.failures]
    print(f"{len(failures)} operations failed:", *failures, sep="\n  ")
    report(broken)
    order = Path(tempfile.gettempdir()) / f"memidx-chaos-seed{seed}-{os.getpid()}.order"
    order.write_text("".join(f"{line}\n" for line in ORDER))
    print(f"seed {seed}: the operations in the order they ran (seconds, clone, actor): {order}")
    return 1 if broken else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmark.chaos", description=__doc__)
    parser.add_argument("--ops", type=int, default=200, help="operations per clone")
    parser.add_argument("--clones", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the clones (path printed)")
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="memidx-chaos-"))
    try:
        return simulate(scratch, args.clones, args.ops, args.seed)
    finally:
        if args.keep:
            print(f"kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
