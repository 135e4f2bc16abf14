"""The figures of the `writers` section: acknowledged against present, syncs, rebuild
comparison, throughput and growth. Printed, never asserted."""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from statistics import mean, median
from typing import TYPE_CHECKING

from tests.benchmark.fleet import (
    against_rebuild,
    git,
    indexed,
    memidx,
    status_reasons,
    tree,
)
from tests.benchmark.timing import percentile

if TYPE_CHECKING:
    from tests.benchmark.writers import Quiesced, Share, Writer

MINUTES_PER_DAY = 24 * 60
Acknowledged = tuple[set[str], set[str]]  # record ids, note refs


def report(
    writers: Sequence[Writer],
    *,
    quiesced: Quiesced,
    roots: Sequence[Path],
    envs: Sequence[dict[str, str]],
    remote: Path,
    scratch: Path,
    words: Sequence[str],
) -> None:
    elapsed = max(w.elapsed for w in writers)
    _throughput(writers, elapsed)
    print("shares while writing: " + _shares([s for w in writers for s in w.shares]))
    print("shares to quiesce:    " + _shares(quiesced.shares))
    print(f"quiesce converged: {'yes' if quiesced.converged else 'NO'} ({quiesced.rounds} rounds)")
    records = {r for w in writers for r in w.records}
    notes = {n for w in writers for n in w.notes}
    _present(records, notes, roots, envs, remote)
    _rebuilds(roots, envs, scratch, words)
    _growth(roots, envs, remote, elapsed)


def _throughput(writers: Sequence[Writer], elapsed: float) -> None:
    turns = sum(len(w.records) for w in writers)
    notes = sum(len(w.notes) for w in writers)
    iterations = sum(w.iterations for w in writers)
    print(
        f"{len(writers)} writers for {elapsed:.0f} s: {iterations} iterations, {turns} turns and "
        f"{notes} notes acknowledged = {turns / elapsed:.2f} turns/s and "
        f"{notes / elapsed * 60:.1f} notes/min in all, "
        f"{iterations / len(writers) / elapsed * 60:.1f} iterations/min per writer"
    )
    for what in ("file-turn", "remember", "share"):
        times = [t for w in writers for t in w.seconds.get(what, [])]
        if times:
            print(
                f"  {what:<9} {len(times):>5} runs: p50 {median(times):.2f} s, "
                f"p95 {percentile(times, 95):.2f} s, max {max(times):.2f} s"
            )
    failures = [f for w in writers for f in w.failures]
    print(f"  file-turn/remember failures: {len(failures)}")
    for line, count in Counter(failures).most_common(5):
        print(f"    {count} x {line[:200]}")


def _shares(shares: Sequence[Share]) -> str:
    outcomes = Counter(s.outcome for s in shares)
    attempts = [s.attempts for s in shares if s.code == 0]
    retried = sum(1 for a in attempts if a > 1)
    text = (
        f"{len(shares)} runs, {outcomes['ok']} ok; attempts mean "
        f"{mean(attempts) if attempts else 0:.2f}, max {max(attempts, default=0)}, "
        f"{retried} needed a retry ({sum(a - 1 for a in attempts)} retries); merge conflicts "
        f"{sum(s.conflict for s in shares)}; needed a person {outcomes['person']}; gave up after "
        f"all attempts {outcomes['gave up']}; other errors {outcomes['error']}"
    )
    spread = Counter(s.attempts for s in shares if s.code == 0)
    text += "\n    attempts of the shares that got through: " + ", ".join(
        f"{n}: {spread[n]}" for n in sorted(spread)
    )
    for message, count in Counter(s.message for s in shares if s.message).most_common(3):
        text += f"\n    {count} x {message[:200]}"
    return text


def _present(
    records: set[str],
    notes: set[str],
    roots: Sequence[Path],
    envs: Sequence[dict[str, str]],
    remote: Path,
) -> None:
    print(f"acknowledged: {len(records)} records, {len(notes)} notes; present (target: all):")
    wanted = (records, notes)
    at_remote = tree(remote, envs[0])
    _line("remote", wanted, (at_remote.records, at_remote.notes))
    for root, env in zip(roots, envs, strict=True):
        try:
            ids, refs = indexed(root / ".memidx" / "index.sqlite")
        except sqlite3.DatabaseError as exc:
            print(f"  {root.name:<7} index unreadable: {exc}")
            continue
        status = memidx(root, env, "status", "--json")
        here = tree(root / ".git", env, "HEAD")
        _line(
            f"{root.name} index",
            wanted,
            (ids, refs),
            (f"; status exit {status.code}: {status_reasons(status)}" if status.code else ""),
        )
        if here.records != at_remote.records or here.notes != at_remote.notes:
            _line(f"{root.name} HEAD", wanted, (here.records, here.notes))


def _line(name: str, wanted: Acknowledged, found: Acknowledged, extra: str = "") -> None:
    (records, notes), (ids, refs) = wanted, found
    print(
        f"  {name:<10} records {len(records & ids)}/{len(records)} (missing "
        f"{len(records - ids)}), notes {len(notes & refs)}/{len(notes)} (missing "
        f"{len(notes - refs)}){extra}"
        + (f"; e.g. missing {sorted(records - ids)[:2]}" if records - ids else "")
    )


def _rebuilds(
    roots: Sequence[Path], envs: Sequence[dict[str, str]], scratch: Path, words: Sequence[str]
) -> None:
    found = {
        r.name: against_rebuild(r, e, scratch, words) for r, e in zip(roots, envs, strict=True)
    }
    equal = [name for name, diffs in found.items() if not diffs]
    print(
        "index equal to a fresh rebuild (memidx ingest into another file): "
        f"{len(equal)}/{len(roots)}"
    )
    for name, diffs in found.items():
        if diffs:
            print(f"  {name}: {len(diffs)} differences, e.g. {diffs[0]}")


def _growth(
    roots: Sequence[Path], envs: Sequence[dict[str, str]], remote: Path, elapsed: float
) -> None:
    log = git(remote, envs[0], "--git-dir", str(remote), "log", "--format=%an%x09%P", "main").out
    commits: Counter[str] = Counter()
    merges: Counter[str] = Counter()
    for line in log.splitlines():
        author, parents = line.split("\t")
        (merges if len(parents.split()) > 1 else commits)[author] += 1
    at_remote = tree(remote, envs[0])
    minutes = elapsed / 60
    print(
        f"growth over {minutes:.1f} min of writing (per clone; per day = "
        f"x{MINUTES_PER_DAY / minutes:.0f}):"
    )
    print(
        f"  {'clone':<6} {'commits/min':>11} {'merges/min':>10} {'segments/min':>12} {'KiB/min':>8}"
    )
    rows: list[tuple[float, float, float, float]] = []
    for i, root in enumerate(roots):
        folder = (root / ".memidx" / "writer-id").read_text().strip()
        name = f"writer-{i}"
        row = (
            commits[name] / minutes,
            merges[name] / minutes,
            at_remote.segments.get(folder, 0) / minutes,
            at_remote.segment_bytes.get(folder, 0) / 1024 / minutes,
        )
        rows.append(row)
        print(f"  {root.name:<6} {row[0]:>11.1f} {row[1]:>10.1f} {row[2]:>12.1f} {row[3]:>8.1f}")
    per = [sum(col) / len(rows) for col in zip(*rows, strict=True)]
    day = [v * MINUTES_PER_DAY for v in per]
    total = sum(commits.values()) + sum(merges.values())
    loose = _object_kib(remote, envs[0])
    git(remote, envs[0], "--git-dir", str(remote), "gc", "-q")
    packed = _object_kib(remote, envs[0])
    print(
        f"  mean per clone per day: {day[0]:,.0f} commits, {day[1]:,.0f} merges, "
        f"{day[2]:,.0f} segments, {day[3] / 1024:,.1f} MiB of segments"
    )
    print(
        f"  remote: {total} commits, {sum(at_remote.segments.values())} segments, "
        f"{loose / 1024:.1f} MiB of objects as pushed, {packed / 1024:.1f} MiB after git gc, "
        f"after {minutes:.1f} min; per day at this rate: "
        f"{total / minutes * MINUTES_PER_DAY:,.0f} commits, "
        f"{sum(at_remote.segments.values()) / minutes * MINUTES_PER_DAY:,.0f} segments, "
        f"{packed / 1024 / minutes * MINUTES_PER_DAY / 1024:,.1f} GiB packed"
    )


def _object_kib(git_dir: Path, env: dict[str, str]) -> int:
    counted = git(git_dir, env, "--git-dir", str(git_dir), "count-objects", "-v").out
    size = {k: v for k, _, v in (line.partition(": ") for line in counted.splitlines())}
    return int(size.get("size", "0")) + int(size.get("size-pack", "0"))
