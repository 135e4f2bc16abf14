"""The end of tests/benchmark/chaos.py: the person's last commit, the side branches merged,
every clone brought to the remote's HEAD (share, pull, resolve, push, bounded), then every
promise checked, each broken one named once by its cause and grouped by kind."""

from __future__ import annotations

import random
import shutil
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.benchmark.chaos import QUERIES, Machine, wip_path
from tests.benchmark.chaos_person import home, persist, settle
from tests.benchmark.fleet import git, indexed, memidx, tree

ROUNDS = 8  # of share, pull and push on every clone before the clones count as apart
Broken = list[tuple[str, str]]  # kind, what


def searches(m: Machine) -> list[list[tuple[str, float]]]:
    found: list[list[tuple[str, float]]] = []
    for query in QUERIES:
        done = memidx(m.root, m.env, "search", "--mode", "bm25", "--json", "-k", "10", query)
        hits: list[dict[str, Any]] = (done.last_json() or {}).get("hits") or []
        found.append([(str(h["ref"]), round(float(h["score"]), 6)) for h in hits])
    return found


def head(root: Path, env: dict[str, str]) -> str:
    return git(root, env, "rev-parse", "HEAD").out.strip()


def remote_head(remote: Path, env: dict[str, str]) -> str:
    return git(remote, env, "--git-dir", str(remote), "rev-parse", "main").out.strip()


def wrap_up(m: Machine, rng: random.Random) -> Broken:
    """The person commits their work, settles, and merges each side branch left behind."""
    broken: Broken = []
    home(m, rng, wip_path(m))
    if m.unstaged or m.staged:
        git(m.root, m.env, "add", wip_path(m))
        git(m.root, m.env, "commit", "-q", "-m", f"person {m.index} done")
    # a merge back the person aborted left a side branch: what memidx committed there is
    # merged, their own file's conflict taken main's way, then the branch deleted as the
    # switch back does: a note still pending for it is committed on main by the share
    listed = git(m.root, m.env, "branch", "--format=%(refname:short)").out.split()
    for side in (name for name in listed if name != "main"):
        merged = git(m.root, m.env, "merge", "-q", "--no-edit", "-X", "ours", side)
        if merged.code != 0:
            git(m.root, m.env, "merge", "--abort")
            broken.append(("side branch does not merge", f"c{m.index} {side}: {merged.err}"))
            continue
        git(m.root, m.env, "branch", "-q", "-d", side)
        m.fail("finish: side branch merged and deleted", side)
    return broken


def converge(machines: Sequence[Machine], remote: Path, rng: random.Random) -> int:
    """Rounds of share, then the person's pull (conflicts settled) and push, on every clone,
    until a round moves no HEAD and every clone stands at the remote's; 0 when none did."""
    for rounds in range(1, ROUNDS + 1):
        before = [head(m.root, m.env) for m in machines]
        for m in machines:
            memidx(m.root, m.env, "share", "--json")
            persist(m, rng, wip_path(m), "pull", "-q", "--no-rebase", "--no-edit")
            settle(m, rng)
            git(m.root, m.env, "push", "-q", "origin", "HEAD:main")
        after = [head(m.root, m.env) for m in machines]
        if before == after and set(after) == {remote_head(remote, machines[0].env)}:
            return rounds
    return 0


def leftovers(m: Machine) -> set[str]:
    """What `git status` shows once the person committed their work and the clones converged:
    a ` D` of a note memidx deleted and never committed, a note staged again, a stray file;
    each is the person's next `git commit -a` undoing memidx's work, or memidx's left behind."""
    done = git(m.root, m.env, "status", "--porcelain=v1", "-z", "--untracked-files=all")
    return status_entries(done.out)


def status_entries(out: str) -> set[str]:
    """`XY path` for each entry of `git status --porcelain=v1 -z`; a rename or copy as
    `XY old -> new` (its original path is the field after it: read as an entry of its own, a
    staged rename showed `no es/x.md`, a status `no` no git prints)."""
    fields = iter(out.split("\0"))
    found: set[str] = set()
    for entry in fields:
        if len(entry) < 4:  # the empty field after the last NUL
            continue
        status, path = entry[:2], entry[3:]
        if "R" in status or "C" in status:
            path = f"{next(fields, '')} -> {path}"
        found.add(f"{status} {path}")
    return found


def forgot_after_all(remote: Path, env: dict[str, str], ref: str) -> bool:
    """Whether the remote's last change of `ref` is memidx's forget: one that exited 1 ("HEAD
    moved ..., so it was not forgotten") and whose commit a pull --rebase applied after all."""
    args = ("--git-dir", str(remote), "log", "-1", "--format=%s", "main", "--", ref)
    return git(remote, env, *args).out.strip() == f"memidx forget: {ref}"


def missing(kind: str, where: str, refs: set[str], cause: str = "") -> Broken:
    """One line for all the refs one place lacks for one cause."""
    if not refs:
        return []
    shown = ", ".join(sorted(refs)[:3]) + (", ..." if len(refs) > 3 else "")
    return [(kind, f"{where}: {len(refs)}{cause} ({shown})")]


def finish(machines: Sequence[Machine], remote: Path) -> Broken:
    """The person commits their work; every clone converges; the checks."""
    rng = random.Random(f"{machines[0].seed}/finish")
    broken = [b for m in machines for b in wrap_up(m, rng)]
    rounds = converge(machines, remote, rng)
    for m in machines:
        memidx(m.root, m.env, "sync")
    at = remote_head(remote, machines[0].env)
    apart = [m for m in machines if head(m.root, m.env) != at]
    if not rounds:
        for m in apart:
            broken.append(("clone did not converge", f"c{m.index} not at the remote's HEAD"))
    held = tree(remote, machines[0].env)
    notes = set[str]().union(*(m.notes - m.forgotten for m in machines))
    gone = set[str]().union(*(m.forgotten for m in machines))
    records = set[str]().union(*(m.records for m in machines))
    for m in machines:
        lacked = (m.notes - m.forgotten) - held.notes
        said_not = {ref for ref in lacked if forgot_after_all(remote, m.env, ref)}
        broken += missing("remote lacks note", f"c{m.index}'s", lacked - said_not)
        cause = " a forget said were not forgotten (exit 1), yet its commit landed"
        broken += missing("forget's error untrue", f"c{m.index}'s", said_not, cause)
        broken += missing("remote lacks record", f"c{m.index}'s", m.records - held.records)
    broken += missing("remote holds forgotten note", "remote", gone & held.notes)
    broken += missing("remote holds record twice", "remote", held.twice)
    left = {m.index: leftovers(m) for m in machines}
    for m in machines:
        broken += missing("work tree leftover", f"c{m.index}", left[m.index])
    untrue = {r for r in notes - held.notes if forgot_after_all(remote, machines[0].env, r)}
    lost, back = notes - held.notes - untrue, gone & held.notes
    print(f"seed {machines[0].seed}: {len(notes | gone)} notes acknowledged, {len(gone)} "
          f"forgotten, {len(lost)} lost, {len(back)} back, {len(untrue)} forgotten though forget "
          f"said not, {len(records - held.records)} "
          f"of {len(records)} records missing, {sum(map(len, left.values()))} work-tree "
          "leftovers")  # fmt: skip
    for m in machines:
        ids, refs = indexed(m.root / ".memidx" / "index.sqlite")
        here = tree(m.root / ".git", m.env, "HEAD")
        # what HEAD holds and the index lacks is the index's; what HEAD lacks was counted at
        # the remote, or is one clone apart (one line for all it lacks)
        broken += missing("index lacks note in HEAD", f"c{m.index}", (notes & here.notes) - refs)
        broken += missing(
            "index lacks record in HEAD", f"c{m.index}", (records & here.records) - ids
        )
        if m in apart:
            cause = " acknowledged notes and records its HEAD lacks, one clone apart"
            lacked = ((notes & held.notes) - here.notes) | ((records & held.records) - here.records)
            broken += missing("clone did not converge", f"c{m.index}", lacked, cause)
        status = memidx(m.root, m.env, "status", "--json")
        if status.code != 0:
            broken.append(
                ("status not clean", f"c{m.index} exit {status.code}: {status.out[-400:]}")
            )
        before = searches(m)
        # the rebuild check deletes .memidx/ and its logs with it: kept beside the clone
        shutil.copytree(m.root / ".memidx", m.root.parent / f"c{m.index}-memidx-kept")
        shutil.rmtree(m.root / ".memidx")
        memidx(m.root, m.env, "ingest")
        if searches(m) != before:
            broken.append(("ingest not equal", f"c{m.index}: search differs after a rebuild"))
    return broken


def report(broken: Broken) -> None:
    """The broken promises: a count per kind, then each one under its kind."""
    kinds = Counter(kind for kind, _ in broken)
    print(f"{len(broken)} promises broken" + (":" if broken else ""),
          ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items())))  # fmt: skip
    for kind in sorted(kinds):
        print(f"  {kind}:", *(what for k, what in broken if k == kind), sep="\n    ")
