"""Filing in the log alone, for a hurried filer (an agent's hook) that met an index it cannot
write as it is (schema 4 or older, memidx.errors.IndexLeft): the log is the truth for
records, so the record is kept there now, and the index catches up with the segment when a
writer with time for it has upgraded it (the next `memidx sync`, git hook, ingest or filing:
each reads a segment whose size changed since it was indexed; a filing reads those named in
memidx.haystack.left_segments, as it reads the one written last)."""

from __future__ import annotations

import sqlite3
from contextlib import closing, suppress
from pathlib import Path
from typing import TYPE_CHECKING

from memidx.config import Config
from memidx.errors import MemidxError
from memidx.haystack.filing_errors import write_failed
from memidx.haystack.frames import Record, frame, scan_file
from memidx.haystack.indexing import Filed, segment_ref
from memidx.haystack.left_segments import leave, left_refs
from memidx.haystack.redaction import redacted
from memidx.haystack.segments import segments
from memidx.index.connection import connect_reader
from memidx.index.store import RecordStore

if TYPE_CHECKING:
    from memidx.haystack.writer import Writer

# Bytes of segments a filing in the log alone reads for the same record (~20 ms a MB): the
# segments of weeks with no writer to upgrade the index would take the hook past its deadline;
# what is older than these is left to the index, once caught up, to find
SCAN_BYTES = 8 * 1024 * 1024


def file_in_log(config: Config, record: Record, writer: Writer) -> Filed:
    """Append a record to this clone's log without indexing it; the same content in the same
    session is not filed twice (as the old index, the segment written last or one a filing in
    the log alone wrote holds it). The segment is named for the next filing into the index."""
    record = redacted(record)  # before any byte is written: the secret never reaches the log
    with writer.locked():
        writer.keep_up()  # a record a crash kept from the copy, found here, is kept
        found = _indexed(config, record) or _in_segments(config, record, writer)
        if found is not None:
            return Filed(*found, duplicate=True)
        try:
            path, offset, _ = writer.append_frame_locked(frame(record))
        except OSError as exc:
            raise write_failed(config.root, exc) from exc
        # named for the next filing into the index: this segment, one whose torn tail the
        # append moved aside, those taken over from a copied clone's id (their rows move)
        moved = [p for pair in writer.taken_over for p in pair]
        leave(config, (segment_ref(config, p) for p in [*moved, *writer.cut, path]))
    return Filed(record.id, f"{segment_ref(config, path)}@{offset}", duplicate=False)


def _indexed(config: Config, record: Record) -> tuple[str, str] | None:
    """(id, ref) of the same record in the old index (read only: its documents are as they
    were), if it can be read."""
    with suppress(MemidxError, sqlite3.Error), closing(connect_reader(config.index_path)) as conn:
        return RecordStore(conn).find_record(record.kind, record.hash, record.session)
    return None


def _in_segments(config: Config, record: Record, writer: Writer) -> tuple[str, str] | None:
    """(id, ref) of the same record in the segment written last or one a filing in the log
    alone wrote: where the filings since the index was last written went."""
    last = writer.last_segment()
    named = [config.root / ref for ref in reversed(left_refs(config))]  # the latest first
    budget = SCAN_BYTES
    first: list[Path] = [last] if last else []
    for path in dict.fromkeys([*first, *named, *_latest(config)]):
        if not path.is_file():  # gone (taken over)
            continue
        budget -= path.stat().st_size
        if budget < 0 and path != last:
            break
        for located in scan_file(path).records:
            same = located.record
            if (same.kind, same.hash, same.session) == (record.kind, record.hash, record.session):
                return same.id, f"{segment_ref(config, path)}@{located.offset}"
    return None


def _latest(config: Config) -> list[Path]:
    """Every writer's segments, the latest day first: an index deleted with this clone's state
    (its writer's id, the segment written last) holds nothing to tell a turn filed before it
    from a new one, and a hook that filled the index found it there; one that leaves the filling
    to another finds it here, within SCAN_BYTES."""
    return sorted(segments(config.notes_path / "haystack"), key=lambda p: p.name, reverse=True)
