"""(b) Damaged segments: the last record of the writer's current segment truncated at every
length inside its frame, and one byte flipped (seeded XOR) in the header and the body of each
middle record. After each damage: `memidx sync`, whether every intact record is still indexed,
whether status, reconcile or sync report the damage, then one more filing (the writer's next
append) and whether the intact records are still in the segment. memidx runs in-process here
(hundreds of cases); the clone is restored from a copy at the same path before each case."""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import shutil
import sys
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path

from memidx.config import load_config
from memidx.haystack.filing import Haystack
from memidx.haystack.frames import HEADER, Located, scan_file
from tests.benchmark.faults.lab import MARK, Lab, make_lab, on_disk, sentence
from tests.benchmark.faults.tally import Tally
from tests.benchmark.fleet import indexed, status_problem
from tests.helpers import Run, run_in_process

RECORDS = 12  # in the damaged segment


@dataclass(frozen=True, slots=True)
class Damage:
    """One case: which record, which byte (or the length it is cut to), and how."""

    kind: str  # truncation, magic, length, body
    record: int  # index in the segment
    at: int  # file offset of the byte flipped, or the new file length
    mask: int = 0


def run_frames(scratch: Path, seed: int) -> Tally:
    rng = random.Random(seed)
    tally = Tally(f"(b) truncated last record, flipped bytes in middle records (seed {seed})")
    with _quiet_environment():
        lab = make_lab(scratch, scratch / "frames", rng, notes=3, turns=0)
        segment, located = _fill_segment(lab, rng)
        pristine = scratch / "frames-pristine"
        shutil.copytree(lab.root, pristine, symlinks=True)
        ids = [item.record.id for item in located]
        for damage in _cases(located, rng):
            shutil.rmtree(lab.root)
            shutil.copytree(pristine, lab.root, symlinks=True)
            _damage(segment, damage)
            _one_case(lab, damage, ids, tally)
    tally.acknowledged = tally.runs * (RECORDS - 1)
    return tally


def _fill_segment(lab: Lab, rng: random.Random) -> tuple[Path, list[Located]]:
    haystack = Haystack(load_config(lab.root))
    try:
        for _ in range(RECORDS):
            n = lab.next()
            haystack.file("turn", sentence(rng, n)[:60], session=f"frames-{n}")
    finally:
        haystack.close()
    (segment,) = (lab.root / "notes" / "haystack").rglob("*.krd")
    return segment, scan_file(segment).records


def _cases(located: list[Located], rng: random.Random) -> Generator[Damage]:
    last = located[-1]
    for length in range(last.offset + 1, last.offset + last.length):
        yield Damage("truncation", len(located) - 1, length)
    for index in range(len(located) // 4, len(located) - len(located) // 4):
        item = located[index]
        for byte in range(HEADER.size):
            yield Damage(
                "magic" if byte < 4 else "length", index, item.offset + byte, rng.randrange(1, 256)
            )
        body = item.offset + HEADER.size
        for byte in sorted({0, 9, (item.length - HEADER.size) // 2, item.length - HEADER.size - 1}):
            yield Damage("body", index, body + byte, rng.randrange(1, 256))


def _damage(segment: Path, damage: Damage) -> None:
    if damage.kind == "truncation":
        with segment.open("r+b") as out:
            out.truncate(damage.at)
        return
    data = bytearray(segment.read_bytes())
    data[damage.at] ^= damage.mask
    segment.write_bytes(bytes(data))


def _one_case(lab: Lab, damage: Damage, ids: list[str], tally: Tally) -> None:
    tally.runs += 1
    where = f"{damage.kind} of record {damage.record} at byte {damage.at}"
    intact = set(ids) - {ids[damage.record]}
    synced = _memidx(lab, "sync")
    status = _memidx(lab, "status", "--json")
    reconcile = _memidx(lab, "reconcile")
    search = _memidx(lab, "search", "--json", "--mode", "bm25", MARK)
    now, _ = indexed(lab.root / ".memidx" / "index.sqlite")
    problem = status_problem(json.loads(status.out))
    if search.code != 0 or problem:
        tally.unusable.append(f"{where}: search exit {search.code}, status: {problem}")
    lost = intact - now
    tally.seen[f"{damage.kind}: cases"] += 1
    tally.seen[f"{damage.kind}: intact records not indexed after sync"] += len(lost)
    reported = [n for n, r in (("status", status), ("reconcile", reconcile)) if r.code != 0]
    warned = "warning" in synced.err
    by = "+".join(reported) or "neither status nor reconcile"
    tally.seen[f"{damage.kind}: damage reported by {by}{', sync warned' if warned else ''}"] += 1
    if ids[damage.record] in now:
        tally.seen[f"{damage.kind}: the damaged record is still indexed"] += 1
    appended = _memidx(lab, "file-turn", stdin=lab.turn(random.Random(damage.at)))
    _memidx(lab, "sync")
    moved = sorted(intact - on_disk(lab.root))
    after, _ = indexed(lab.root / ".memidx" / "index.sqlite")
    if appended.code != 0:
        tally.seen[f"{damage.kind}: the next file-turn failed: {appended.err.strip()[:80]}"] += 1
    if moved:
        tally.seen[f"{damage.kind}: the next append moved intact records out of the segment"] += 1
        tally.manual.append(f"{where}: splice {len(moved)} records back from .memidx/torn/")
    tally.seen[f"{damage.kind}: intact records not indexed after the next append"] += len(
        intact - after
    )
    for record in sorted(lost | set(moved) | (intact - after)):
        tally.lose(f"{where}: intact record {record} lost (not indexed or moved aside)")


def _memidx(lab: Lab, *args: str, stdin: str | None = None) -> Run:
    """memidx's main() in this process, with `stdin` as its standard input."""
    saved = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()))
    try:
        return run_in_process(lab.root, *args)
    finally:
        sys.stdin = saved


@contextlib.contextmanager
def _quiet_environment() -> Generator[None]:
    """In-process memidx reads this process's environment: no background embed, no model."""
    saved = {k: os.environ.get(k) for k in ("MEMIDX_HOOK_EMBED",)}
    os.environ["MEMIDX_HOOK_EMBED"] = "0"
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
