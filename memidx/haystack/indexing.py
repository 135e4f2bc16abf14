"""Records of the haystack in the index: each record a document (kind turn, transcript or fact,
ref `<segment>@<offset>`), kept in step with the segment files on disk."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from memidx.config import Config
from memidx.errors import MemidxError
from memidx.hashes import content_hash, sha256_hex
from memidx.haystack import damage
from memidx.haystack.filing_errors import not_indexed, refused, write_failed
from memidx.haystack.forgotten import drop_record, forget_in_index, forgotten, kept
from memidx.haystack.frames import FORGET, HEADER, KINDS, Damage, Located, Record, frame, scan_file
from memidx.haystack.left_segments import catch_up, caught_up, left_refs
from memidx.haystack.redaction import redacted
from memidx.haystack.segments import RECORD_READER, RECORD_READER_KEY, segments
from memidx.index.store import NewDocument, RecordStore, Store, VectorStore, transaction
from memidx.notes.chunks import chunk_document
from memidx.notes.note import clean_words
from memidx.private import indexed_record_text

if TYPE_CHECKING:
    from memidx.haystack.writer import Writer
    from memidx.progress import Progress


@dataclass(slots=True)
class RecordReport:
    """What one pass over the segments changed."""

    segments: int = 0
    scanned: int = 0
    indexed: int = 0
    deleted: int = 0
    torn: dict[str, int] = field(default_factory=dict[str, int])
    damaged: dict[str, list[Damage]] = field(default_factory=dict[str, list[Damage]])

    def warnings(self) -> list[str]:
        """One `warning: ...` line per torn tail and per damage, naming segment and offset (the
        hook prints them on stdout, the commands on stderr, each after `memidx: `)."""
        lines = [f"warning: {damage.torn_line(ref, size)}" for ref, size in self.torn.items()]
        lines += [
            f"warning: {damage.damage_line(ref, one)}"
            for ref, found in self.damaged.items()
            for one in found
        ]
        return lines


@dataclass(frozen=True, slots=True)
class Filed:
    """A record appended (or found already filed) and indexed."""

    id: str
    ref: str
    duplicate: bool


def haystack_folder(config: Config) -> Path:
    return config.notes_path / "haystack"


def segment_ref(config: Config, path: Path) -> str:
    return path.relative_to(config.root).as_posix()


def record_document(ref: str, located: Located) -> NewDocument:
    """The index row of one record: a tombstone's body empty (it is never found); tags
    cleaned as filing cleans them; in them and the text, each `[REDACTED:private]` filing
    wrote and each `<private>` span an older memidx filed (the log keeps it verbatim) as the
    stand-in a note's span is (memidx.private.indexed_record_text)."""
    record = located.record
    meta: dict[str, object] = {
        "id": record.id, "drawer": record.drawer, "ts": record.ts,
        "offset": located.offset, "length": located.length, "frame": located.digest,
    }  # fmt: skip
    if not located.intact:  # indexed as read, never as if it were what was filed
        meta["damaged"] = "text does not match its hash"
    meta |= record.optional()
    return NewDocument(
        source_kind=record.kind,
        source_ref=f"{ref}@{located.offset}",
        title="",
        tags=tuple(dict.fromkeys(indexed_record_text(tag) for tag in clean_words(record.tags))),
        aliases=(),
        body="" if record.kind == FORGET else indexed_record_text(record.text),
        body_line=1,
        content_hash=record.hash if located.intact else content_hash(record.text),
        blob_id=None,
        meta=meta,
    )


def index_record(store: Store, ref: str, located: Located, *, rechunk: bool = False) -> bool:
    """Index one record; `rechunk` checks its chunks even when its row is unchanged (another
    record reader built the index). Returns whether anything was written."""
    doc = record_document(ref, located)
    doc_id, changed = store.upsert(doc)
    if changed or rechunk:
        chunks = chunk_document("", doc.body) if doc.body else []
        changed = VectorStore(store.conn).replace_chunks(doc_id, chunks) or changed
    if located.record.forgets:  # a tombstone: the record it forgets leaves the index now
        forget_in_index(store, located.record.forgets)
    return changed


def file_record(config: Config, store: Store, record: Record, writer: Writer) -> Filed:
    """Append a record to this clone's log and index it at once; the same content in the same
    session is not filed twice. The check, the append and the indexing happen under the
    writer's lock, so concurrent filers neither duplicate nor lose a record; the index's write
    transaction is taken first, so a busy index fails the filing before anything is written."""
    record = redacted(record)  # before any byte is written: the secret never reaches the log
    appended: list[str] = []  # the record's ref, once it is in the log
    try:
        with writer.locked():
            left = left_refs(config)  # segments filings in the log alone wrote: read first
            with transaction(store.conn):  # (the record may be there)
                done = catch_up(left, lambda ref: index_segment(config, store, ref, left=True))
                filed = _file_locked(config, store, record, writer, appended)
            if done:
                caught_up(config, left, done)
            return filed
    except (MemidxError, sqlite3.Error, OSError) as exc:
        if appended:  # in the log: say so, whatever stopped the indexing (a retry finds it)
            raise not_indexed(appended[0], exc, config) from exc
        said = refused(exc, config)
        if said is None:
            raise
        raise said from exc


def _file_locked(
    config: Config, store: Store, record: Record, writer: Writer, appended: list[str]
) -> Filed:
    _follow_take_over(config, store, writer)
    _index_last_segment(config, store, writer)  # a record a failed filing left counts too
    existing = RecordStore(store.conn).find_record(record.kind, record.hash, record.session)
    if existing is not None:
        return Filed(*existing, duplicate=True)
    data = frame(record)
    try:
        path, offset, length = writer.append_frame_locked(data)
    except OSError as exc:
        raise write_failed(config.root, exc) from exc
    ref = segment_ref(config, path)
    appended.append(f"{ref}@{offset}")
    known = RecordStore(store.conn).segment(ref)
    if (known is None and offset == 0) or (known is not None and known[2] == offset):
        index_record(store, ref, Located(record, offset, length, _digest(data)))
        stat = path.stat()
        records = (known[3] if known else 0) + 1
        RecordStore(store.conn).set_segment(
            ref, stat.st_size, stat.st_mtime_ns, offset + length, records
        )
    else:  # records before this one are not indexed (a crash, a repair): rescan
        _sync_segment(store, ref, path, path.stat(), RecordReport())
    _follow_cuts(config, store, writer)
    return Filed(record.id, f"{ref}@{offset}", duplicate=False)


def _digest(data: bytes) -> str:
    return sha256_hex(data[HEADER.size :])


def _follow_take_over(config: Config, store: Store, writer: Writer) -> None:
    """Move the index rows of the segments a copied clone's fresh writer id took over."""
    for old, new in writer.taken_over:
        _forget(store, segment_ref(config, old), RecordReport())
        if new.is_file():
            _sync_segment(store, segment_ref(config, new), new, new.stat(), RecordReport())
    writer.taken_over = []


def _follow_cuts(config: Config, store: Store, writer: Writer) -> None:
    """Read again the segments whose torn tail the append moved aside: the index still says
    they hold one, and their size changed."""
    for path in dict.fromkeys(writer.cut):
        _sync_segment(store, segment_ref(config, path), path, path.stat(), RecordReport())
    writer.cut = []


def _index_last_segment(config: Config, store: Store, writer: Writer) -> None:
    """Index the writer's last segment if it changed since it was indexed: a filing that failed
    after its append (or was killed there) left a record a retry must find as a duplicate."""
    writer.keep_up()
    path = writer.last_segment()
    if path is not None:
        index_segment(config, store, segment_ref(config, path))


def index_segment(config: Config, store: Store, ref: str, *, left: bool = False) -> int:
    """Index a segment of this clone if it changed since it was indexed (the bytes after what
    was); one a filing in the log alone named (`left`) is forgotten when gone (taken over by
    a fresh id), as by a sync."""
    path, known = config.root / ref, RecordStore(store.conn).segment(ref)
    if not path.is_file():
        if left and known is not None and not path.exists():
            _forget(store, ref, RecordReport())
        return 0
    stat = path.stat()
    if known is not None and known[:2] == (stat.st_size, stat.st_mtime_ns):
        return 0
    _sync_segment(store, ref, path, stat, RecordReport())
    return max(0, stat.st_size - (known[2] if known else 0))


def fill_index(config: Config, store: Store) -> None:
    """Fill an index that was never filled (new or rebuilt): every note and every record, so
    filing into a deleted index never leaves the rest of the memory out."""
    from memidx.index.sync import ingest

    ingest(config, store, None)
    sync_records(config, store, full=True)


def sync_records(
    config: Config, store: Store, *, full: bool = False, progress: Progress | None = None
) -> RecordReport:
    """Index the complete records of every segment on disk and forget those that are gone.
    Segments whose size and modification time match the index are skipped unless `full`, or
    the index was built by another record reader: then every record is read again. This
    clone's open segments git deleted are written back first (memidx.haystack.kept)."""
    from memidx.haystack.clone_writer import restore_own

    restore_own(config)
    report = RecordReport()
    with transaction(store.conn):  # plan inside it too: another writer may have just synced
        reread = reader_changed(store)
        known = RecordStore(store.conn).segments()
        on_disk = list(segments(haystack_folder(config)))
        for number, path in enumerate(on_disk, start=1):
            ref = segment_ref(config, path)
            stat = path.lstat()  # a link there, dangling too, is damage said, never raised
            seen = known.pop(ref, None)
            report.segments += 1
            same = seen is not None and seen[:2] == (stat.st_size, stat.st_mtime_ns)
            if same and not (full or reread):
                continue
            _sync_segment(store, ref, path, stat, report, reread=reread)
            if progress is not None:
                progress(number, len(on_disk))
        for ref in known:
            _forget(store, ref, report)
        store.set_state(RECORD_READER_KEY, RECORD_READER)
    return report


def reader_changed(store: Store) -> bool:
    """Whether the index's record rows were made by another record reader than this one."""
    return store.get_state(RECORD_READER_KEY) != RECORD_READER


def _sync_segment(
    store: Store,
    ref: str,
    path: Path,
    stat: os.stat_result,
    report: RecordReport,
    *,
    reread: bool = False,
) -> None:
    scan = scan_file(path)
    report.scanned += len(scan.records)
    if scan.torn:
        report.torn[ref] = scan.torn
    if scan.damaged:
        report.damaged[ref] = scan.damaged
    damage.remember(store, ref, scan.torn, scan.damaged)
    indexed = RecordStore(store.conn).frames_with_prefix(KINDS, f"{ref}@")
    gone = forgotten(store, scan.records)
    wanted = {f"{ref}@{r.offset}": r for r in scan.records if kept(r, gone)}
    dropped = {f"{ref}@{r.offset}" for r in scan.records if not kept(r, gone)}
    for doc_ref, (kind, _) in indexed.items():
        located = wanted.get(doc_ref)
        if located is None or located.record.kind != kind:
            drop_record(store, kind, doc_ref, forgotten=doc_ref in dropped)
            report.deleted += 1
    for doc_ref, located in wanted.items():  # by the frame's bytes: any change is read again
        if indexed.get(doc_ref) != (located.record.kind, located.digest):
            index_record(store, ref, located)
            report.indexed += 1
        elif reread and index_record(store, ref, located, rechunk=True):
            report.indexed += 1
    RecordStore(store.conn).set_segment(
        ref, stat.st_size, stat.st_mtime_ns, scan.end, len(scan.records)
    )


def _forget(store: Store, ref: str, report: RecordReport) -> None:
    for doc_ref, (kind, _) in RecordStore(store.conn).with_prefix(KINDS, f"{ref}@").items():
        store.delete(kind, [doc_ref])
        report.deleted += 1
    RecordStore(store.conn).forget_segment(ref)
    damage.remember(store, ref, 0, [])
