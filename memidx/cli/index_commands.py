"""Index maintenance: ingest, reconcile, sync, status, embed, model."""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from typing import TYPE_CHECKING

from memidx.cli.notice import say_notice
from memidx.cli.unembedded import say_unembedded
from memidx.cli.write_commands import say_line
from memidx.config import Config

if TYPE_CHECKING:
    from memidx.haystack.indexing import RecordReport
    from memidx.index.documents import Store
    from memidx.index.sync_report import SyncReport


def ingest(args: argparse.Namespace, config: Config) -> int:
    from memidx.index.failures import clear_unchanged, sync_marks
    from memidx.index.open import mark_index_built, writable_index
    from memidx.text import counted

    marks = sync_marks(config)  # failures until now
    done: list[tuple[SyncReport, RecordReport]] = []

    def fill(config: Config, store: Store) -> None:
        done.append(ingest_all(config, store))

    # a new or unfinished index is filled under the creation lock: a hook or a filing that
    # comes meanwhile waits, and never marks it built before every note and record is in
    store = writable_index(config, say_notice, verify=True, fill=fill)  # repairs damage too
    try:
        if not done:
            done.append(ingest_all(config, store))
            mark_index_built(config, store)
        say_unembedded(config, store)  # a rebuilt index has no vector: `make index` embeds
    finally:
        store.conn.close()
    report, records = done[0]
    clear_unchanged(marks)
    summary = (
        f"indexed {counted(report.read, 'note')} from {report.source}"
        f"{f', {len(report.skipped)} skipped' if report.skipped else ''}"
        f"{f', removed {report.deleted}' if report.deleted else ''}"
        f"; {counted(records.scanned, 'record')} in {counted(records.segments, 'segment')}"
    )
    return finish(report, records, args, "ingest", summary)


def ingest_all(config: Config, store: Store) -> tuple[SyncReport, RecordReport]:
    """Every note at HEAD (read when the index is ours: a hook may just have moved it) and every
    record, read again."""
    from memidx.haystack.indexing import sync_records
    from memidx.index.sync import ingest as ingest_notes
    from memidx.progress import ProgressBar

    bar = ProgressBar("indexing notes")
    try:
        report = ingest_notes(config, store, None, bar)
        bar.close()
        bar = ProgressBar("indexing records")
        return report, sync_records(config, store, full=True, progress=bar)
    finally:
        bar.close()


def sync(args: argparse.Namespace, config: Config) -> int:
    from memidx.cli.write_commands import commit_pending_notes, settle_killed
    from memidx.haystack.indexing import sync_records
    from memidx.index.failures import clear_unchanged, sync_marks
    from memidx.index.open import mark_index_built, writable_index
    from memidx.index.sync import ingest as ingest_notes
    from memidx.index.sync import sync as sync_notes
    from memidx.index.vectors import VectorStore
    from memidx.memory.forget_vectors import scrub_forgotten
    from memidx.progress import ProgressBar

    settle_killed(config)  # a lock a killed memidx left would hold the pending notes up
    filled: list[tuple[SyncReport, RecordReport]] = []

    def fill(config: Config, store: Store) -> None:  # fill_index, keeping its reports
        notes = ingest_notes(config, store, None)
        filled.append((notes, sync_records(config, store, full=True)))  # said below

    with ExitStack() as moving:  # `following` from the pending notes' commit to the index's
        commit_pending_notes(config, moving, left=True)  # first: this sync indexes them
        marks = sync_marks(config)  # failures until now
        store = writable_index(config, say_notice, fill=fill)  # waits for a build under way
        bar = ProgressBar("syncing notes")
        try:
            report = sync_notes(config, store, bar)
            records = sync_records(config, store)
            report, records = filled[0] if filled else (report, records)  # a new index's fill
            mark_index_built(config, store)
            if filled:  # rebuilt: no vector is left, and sync starts no background embed
                say_unembedded(config, store)
            made = (VectorStore(store.conn).index_id(), VectorStore(store.conn).forgotten_at())
        finally:
            bar.close()
            store.conn.close()
    clear_unchanged(marks)  # a forget's vectors it dropped (or a pulled tombstone's) leave the
    scrub_forgotten(config, "forgotten text left the index", say_line, made)  # files
    summary = (
        f"index at {report.source}: {report.written} written, {report.deleted} removed, "
        f"{report.renamed} renamed; records: {records.indexed} indexed, {records.deleted} removed"
    )
    return finish(report, records, args, "sync", summary)


def finish(
    report: SyncReport, records: RecordReport, args: argparse.Namespace, command: str, summary: str
) -> int:
    from memidx.cli import output

    warn_read(report, records)
    if args.json:
        print(output.report_json(report, command, records))
    else:
        print(summary)
    return 1 if report.skipped and not getattr(args, "allow_skipped", False) else 0


def warn_read(report: SyncReport, records: RecordReport) -> None:
    """What reading every note and record skipped or found damaged, on stderr."""
    from memidx.cli import output

    for skip in report.skipped:
        print(output.skip_line(skip), file=sys.stderr)
    _warn_notes(report)
    for line in records.warnings():
        print(f"memidx: {line}", file=sys.stderr)


def reconcile(args: argparse.Namespace, config: Config) -> int:
    from memidx.cli import output
    from memidx.haystack.record_drift import record_drift
    from memidx.index.failures import clear_unchanged, sync_marks
    from memidx.index.open import open_store, writable_index
    from memidx.index.sync import reconcile as reconcile_notes
    from memidx.progress import ProgressBar

    marks = sync_marks(config)  # failures until now
    store = (
        writable_index(config, say_notice)
        if args.fix
        else open_store(config.index_path, write=False)[0]
    )
    try:
        report = reconcile_notes(  # the notes at HEAD as it reads them
            config, store, None, fix=args.fix, progress=ProgressBar("repairing")
        )
        records = record_drift(config, store, deep=True)
        if args.fix:
            _repaired(config, store, records_drift=records.total)
    finally:
        store.conn.close()
    total = report.drift.total + records.total
    if args.json:
        print(output.reconcile_json(report, records))
    else:
        output.write_reconcile(report, records, fix=args.fix)
    for skip in report.skipped:
        print(output.skip_line(skip), file=sys.stderr)
    _warn_notes(report)
    if args.fix:
        clear_unchanged(marks)
        return 1 if report.skipped or records.damaged else 0
    return 1 if total or records.damaged else 0


def _warn_notes(report: SyncReport) -> None:
    for line in report.warnings():
        print(f"memidx: warning: {line}", file=sys.stderr)


def _repaired(config: Config, store: Store, *, records_drift: int) -> None:
    """Bring the records in too, then mark the index built: every note and record is in."""
    from memidx.haystack.indexing import sync_records
    from memidx.index.open import mark_index_built

    if records_drift:
        sync_records(config, store, full=True)
    mark_index_built(config, store)


def status(args: argparse.Namespace, config: Config) -> int:
    from memidx.cli import status_output
    from memidx.cli.write_commands import say_line, settle_killed
    from memidx.memory.pending_landed import settle_landed
    from memidx.memory.status import gather

    settle_killed(config)  # before the look: what is put right is not named as left
    settle_landed(config, say_line)  # a note HEAD holds, once the git that ran with it ended
    found = gather(config)
    if config.in_git:
        from memidx.githooks.outdated import outdated_shims

        found.hooks_outdated = outdated_shims(config.root)
    if args.json:
        print(status_output.status_json(found))
    else:
        status_output.write_status(sys.stdout, found)
    return 0 if found.healthy else 1
