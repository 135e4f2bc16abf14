"""Every command that reports the same thing says it the same way: torn and unreadable records
(the hook on stdout, sync and ingest on stderr) and the drift JSON of status and reconcile."""

from __future__ import annotations

import os

from memidx.haystack.frames import HEADER, MAGIC, frame, new_record
from tests.cli.test_reconcile_status import setup_drift
from tests.helpers import NotesRepo

SEGMENT = "notes/haystack/other-writer/2026-01-01.000.krd"
KEPT = frame(new_record("turn", "kept"))
WARNINGS = [
    f"memidx: warning: {SEGMENT}: 10 bytes of a torn record at the end are not indexed",
    f"memidx: warning: {SEGMENT}@{len(KEPT)}: 15 unreadable bytes skipped (unreadable JSON); "
    "the records after them are indexed",
]


def warnings(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("memidx: warning:")]


def test_torn_and_unreadable_records_are_reported_alike_by_sync_ingest_and_the_hook(
    repo: NotesRepo,
) -> None:
    repo.note("docker.md", "Docker cache", "COPY invalidates the cache of later layers")
    unreadable = HEADER.pack(MAGIC, 7) + b"garbage"
    torn = frame(new_record("turn", "cut by a crash"))[:10]
    whole = KEPT + unreadable + frame(new_record("turn", "also kept"))
    path = repo.write(SEGMENT, whole + torn)
    repo.commit()

    synced = repo.memidx("sync")
    assert synced.code == 0 and warnings(synced.err) == WARNINGS
    ingested = repo.memidx("ingest")
    assert ingested.code == 0 and warnings(ingested.err) == WARNINGS
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1))
    hooked = repo.memidx("hook", "post-commit")
    assert hooked.code == 0 and warnings(hooked.out) == WARNINGS
    assert repo.memidx("search", "--json", "--mode", "bm25", "kept").json()["count"] == 2


def test_status_and_reconcile_give_the_same_drift_json(repo: NotesRepo) -> None:
    setup_drift(repo)
    reconciled = repo.memidx("reconcile", "--json").json()["drift"]
    status = repo.memidx("status", "--json").json()["drift"]
    assert status == reconciled
    assert all(reconciled[kind] for kind in ("missing", "stale", "orphaned", "renamed"))
