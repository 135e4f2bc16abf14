"""(c) A full disk: a clone (with vectors) on a small tmpfs, filled so that only a few bytes
are left, then filing, remembering, ingest, embed, share, search and status; then the space
comes back, the README's recovery runs and the checks follow. Needs root for `mount`; skipped
with the reason when the mount fails. The tmpfs is always unmounted."""

from __future__ import annotations

import errno
import os
import random
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

from tests.benchmark.faults.lab import MARK, Lab, check, make_lab, sentence
from tests.benchmark.faults.tally import Tally
from tests.benchmark.fleet import Done, status_reasons

SIZE = "24m"
LEFT = (0, 16 * 1024, 128 * 1024, 1024 * 1024)  # bytes left free when the commands run
OPS = ("file-turn", "remember", "ingest", "embed", "share", "search", "status")


def run_disk(scratch: Path, seed: int) -> Tally:
    rng = random.Random(seed)
    tally = Tally(f"(c) ENOSPC on a {SIZE} tmpfs, {len(LEFT)} fill levels (seed {seed})")
    mount = scratch / "tmpfs"
    mount.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        tally.skipped = f"mount -t tmpfs failed: {(mounted.stderr or mounted.stdout).strip()}"
        return tally
    try:
        lab = make_lab(scratch, mount / "clone", rng, notes=10, turns=10)
        lab.run("embed")
        for left in LEFT:
            _one_level(lab, mount, left, rng, tally)
    finally:
        if subprocess.run(["umount", str(mount)], capture_output=True, check=False).returncode:
            subprocess.run(["umount", "-l", str(mount)], capture_output=True, check=False)
    return tally


def _one_level(lab: Lab, mount: Path, left: int, rng: random.Random, tally: Tally) -> None:
    vectors, inode = _vectors(lab), _inode(lab)
    filler = mount / "filler"
    _fill(filler, left)
    for op in OPS:
        done = _op(lab, op, rng)
        tally.runs += 1
        outcome = "ok" if done.code == 0 else f"exit {done.code}"
        if "Traceback" in done.err:
            outcome += " with a traceback"
            tally.seen[
                f"{left} B left, {op}: traceback: {done.err.strip().splitlines()[-1][:100]}"
            ] += 1
        elif op == "status" and done.code != 0:
            outcome += f": {status_reasons(done)}"
        elif done.code != 0:
            outcome += f": {done.error()[:110]}"
        tally.seen[f"{left:>7} B left, {op}: {outcome}"] += 1
    filler.unlink()
    where = f"{left} bytes left"
    tally.add(where, check(lab))
    if _inode(lab) != inode:
        tally.seen[f"{where}: the index file was replaced (a rebuild)"] += 1
    after = _vectors(lab)
    if after < vectors:
        tally.seen[
            f"{where}: vectors destroyed: {vectors} before, {after} after space returned"
        ] += 1
    lab.run("embed")
    tally.acknowledged = len(lab.records) + len(lab.notes)


def _op(lab: Lab, op: str, rng: random.Random) -> Done:
    if op == "file-turn":
        done = lab.run("file-turn", stdin=lab.turn(rng))
        if done.code == 0:
            lab.records.add(done.out.split()[0])
        return done
    if op == "remember":
        n = lab.next()
        done = lab.run("remember", "--title", f"Disk lesson {n}", stdin=sentence(rng, n))
        if done.code == 0:
            lab.notes.add(done.out.split()[0])
        return done
    if op == "search":
        return lab.run("search", "--json", "--mode", "bm25", MARK)
    if op == "status":
        return lab.run("status", "--json")
    return lab.run(op)


def _fill(filler: Path, left: int) -> None:
    """Write zeros until only `left` bytes are free (tmpfs counts whole pages)."""
    stat = os.statvfs(filler.parent)
    remaining = stat.f_bavail * stat.f_frsize - left
    block = b"\0" * (1 << 20)
    with filler.open("wb", buffering=0) as out:
        try:
            while remaining > 0:
                remaining -= out.write(block[: min(len(block), remaining)]) or 0
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                raise


def _vectors(lab: Lab) -> int:
    try:
        path = lab.root / ".memidx" / "index.sqlite"
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            return int(conn.execute("SELECT count(*) FROM vectors").fetchone()[0])
    except sqlite3.DatabaseError:
        return -1


def _inode(lab: Lab) -> int:
    path = lab.root / ".memidx" / "index.sqlite"
    return path.stat().st_ino if path.exists() else -1
