"""The end of tests/benchmark/chaos.py: the person's last commit, the side branches merged,
every clone shared until nothing changes, then every promise checked."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.benchmark.chaos import QUERIES, Machine, wip_path
from tests.benchmark.fleet import git, indexed, memidx, tree
from tests.benchmark.writers import quiesce


def searches(m: Machine) -> list[list[tuple[str, float]]]:
    found: list[list[tuple[str, float]]] = []
    for query in QUERIES:
        done = memidx(m.root, m.env, "search", "--mode", "bm25", "--json", "-k", "10", query)
        hits: list[dict[str, Any]] = (done.last_json() or {}).get("hits") or []
        found.append([(str(h["ref"]), round(float(h["score"]), 6)) for h in hits])
    return found


def finish(machines: Sequence[Machine], remote: Path) -> list[str]:
    """The person commits their work; every clone shares until nothing changes; the checks."""
    broken: list[str] = []
    for m in machines:
        if m.unstaged:
            git(m.root, m.env, "add", wip_path(m))
            git(m.root, m.env, "commit", "-q", "-m", f"person {m.index} done")
        # a merge back git refused (the person's staged edit in the way) left a side branch:
        # what memidx committed there, on the branch HEAD named, is merged as a person would,
        # their own file's conflict resolved their main's way (its abort lost every note of
        # the branch), then the branch deleted as the switch back does: a note still pending
        # for it is committed on main then, by the share below
        listed = git(m.root, m.env, "branch", "--format=%(refname:short)").out.split()
        for side in (name for name in listed if name != "main"):
            merged = git(m.root, m.env, "merge", "-q", "--no-edit", "-X", "ours", side)
            if merged.code != 0:
                git(m.root, m.env, "merge", "--abort")
                broken.append(f"c{m.index}: side branch {side} does not merge: {merged.err}")
                continue
            git(m.root, m.env, "branch", "-q", "-d", side)
            m.fail("finish: side branch merged and deleted", side)
    roots, envs = [m.root for m in machines], [m.env for m in machines]
    quiesced = quiesce(roots, envs, remote)
    if not quiesced.converged:
        broken.append(f"clones did not converge in {quiesced.rounds} rounds of share")
    for m in machines:
        memidx(m.root, m.env, "sync")
    held = tree(remote, machines[0].env)
    notes = set[str]().union(*(m.notes - m.forgotten for m in machines))
    gone = set[str]().union(*(m.forgotten for m in machines))
    records = set[str]().union(*(m.records for m in machines))
    broken += [f"remote lacks note {n}" for n in sorted(notes - held.notes)]
    broken += [f"remote still holds forgotten {n}" for n in sorted(gone & held.notes)]
    broken += [f"remote lacks record {r}" for r in sorted(records - held.records)]
    for m in machines:
        ids, refs = indexed(m.root / ".memidx" / "index.sqlite")
        broken += [f"c{m.index} index lacks note {n}" for n in sorted(notes - refs)]
        broken += [f"c{m.index} index lacks record {r}" for r in sorted(records - ids)]
        status = memidx(m.root, m.env, "status", "--json")
        if status.code != 0:
            broken.append(f"c{m.index} status exit {status.code}: {status.out[-400:]}")
        before = searches(m)
        shutil.rmtree(m.root / ".memidx")
        memidx(m.root, m.env, "ingest")
        if searches(m) != before:
            broken.append(f"c{m.index}: search differs after deleting .memidx/ and ingesting")
    return broken
