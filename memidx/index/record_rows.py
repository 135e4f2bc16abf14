"""The haystack's records in the index: lookups by ref range, id and content, and the state of
each segment file as last indexed."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence


class RecordStore:
    """Typed access to record rows and segment states on one connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def with_prefix(self, kinds: Sequence[str], prefix: str) -> dict[str, tuple[str, str]]:
        """ref -> (kind, content hash) of the documents whose ref starts with `prefix` (an
        index range scan per kind)."""
        found: dict[str, tuple[str, str]] = {}
        for kind in kinds:
            rows = self.conn.execute(
                "SELECT source_ref, content_hash FROM documents WHERE source_kind = ? "
                "AND source_ref >= ? AND source_ref < ?",
                (kind, prefix, prefix + "\U0010ffff"),
            )
            found.update({ref: (kind, h) for ref, h in rows})
        return found

    def frames_with_prefix(self, kinds: Sequence[str], prefix: str) -> dict[str, tuple[str, str]]:
        """ref -> (kind, digest of the frame it was read from) of the records whose ref starts
        with `prefix` (rows from before the digest give "")."""
        found: dict[str, tuple[str, str]] = {}
        for kind in kinds:
            rows = self.conn.execute(
                "SELECT source_ref, coalesce(json_extract(meta, '$.frame'), '') FROM documents "
                "WHERE source_kind = ? AND source_ref >= ? AND source_ref < ?",
                (kind, prefix, prefix + "\U0010ffff"),
            )
            found.update({ref: (kind, str(digest)) for ref, digest in rows})
        return found

    def find_record(
        self, kind: str, content_hash: str, session: str | None
    ) -> tuple[str, str] | None:
        """(id, ref) of a record of this kind, content and session, if one is indexed."""
        rows = self.conn.execute(
            "SELECT meta, source_ref FROM documents WHERE content_hash = ? AND source_kind = ?",
            (content_hash, kind),
        )
        for meta, ref in rows:
            data = json.loads(meta)
            if data.get("session") == session:
                return str(data["id"]), str(ref)
        return None

    def record_ref(self, record_id: str) -> str | None:
        """The ref (segment@offset) of the record with this id."""
        row = self.conn.execute(
            "SELECT source_ref FROM documents WHERE json_extract(meta, '$.id') = ? LIMIT 1",
            (record_id,),
        ).fetchone()
        return None if row is None else str(row[0])

    def forgets(self, record_id: str) -> str | None:
        """The id the tombstone with this id forgets (None: no tombstone has this id)."""
        row = self.conn.execute(
            "SELECT json_extract(meta, '$.forgets') FROM documents WHERE source_kind = 'forget' "
            "AND json_extract(meta, '$.id') = ? LIMIT 1",
            (record_id,),
        ).fetchone()
        return None if row is None else str(row[0])

    def tombstone_of(self, record_id: str) -> str | None:
        """The id of a tombstone in the index that forgets this record, if any."""
        return self._first_value(
            "SELECT json_extract(meta, '$.id') FROM documents WHERE source_kind = 'forget' "
            "AND json_extract(meta, '$.forgets') = ? ORDER BY source_ref LIMIT 1",
            record_id,
        )

    def forgotten_ids(self) -> set[str]:
        """The ids the tombstones in the index forget (records of kind `forget`)."""
        rows = self.conn.execute(
            "SELECT json_extract(meta, '$.forgets') FROM documents WHERE source_kind = 'forget'"
        )
        return {str(value) for (value,) in rows if value}

    def refs_of_id(self, record_id: str) -> list[tuple[str, str]]:
        """(kind, ref) of the rows of the record with this id, tombstones aside."""
        rows = self.conn.execute(
            "SELECT source_kind, source_ref FROM documents WHERE source_kind != 'forget' "
            "AND source_kind != 'note' AND json_extract(meta, '$.id') = ?",
            (record_id,),
        )
        return [(str(kind), str(ref)) for kind, ref in rows]

    def id_at(self, ref: str) -> str | None:
        """The id of the record indexed at `<segment>@<offset>`."""
        return self._first_value(
            "SELECT json_extract(meta, '$.id') FROM documents WHERE source_ref = ? "
            "AND source_kind != 'note'",
            ref,
        )

    def _first_value(self, sql: str, value: str) -> str | None:
        """The first column of the first row `sql` gives for `value` (None: no row, or NULL)."""
        row = self.conn.execute(sql, (value,)).fetchone()
        return None if row is None or row[0] is None else str(row[0])

    def segments(self) -> dict[str, tuple[int, int, int, int]]:
        """path -> (size, mtime_ns, end offset, records) of every indexed segment."""
        rows = self.conn.execute("SELECT path, size, mtime_ns, end_offset, records FROM segments")
        return {p: (s, m, e, n) for p, s, m, e, n in rows}

    def segment(self, path: str) -> tuple[int, int, int, int] | None:
        """(size, mtime_ns, end offset, records) of one indexed segment."""
        row = self.conn.execute(
            "SELECT size, mtime_ns, end_offset, records FROM segments WHERE path = ?", (path,)
        ).fetchone()
        return None if row is None else (int(row[0]), int(row[1]), int(row[2]), int(row[3]))

    def set_segment(self, path: str, size: int, mtime_ns: int, end: int, records: int) -> None:
        self.conn.execute(
            "INSERT INTO segments (path, size, mtime_ns, end_offset, records) "
            "VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns, "
            "end_offset = excluded.end_offset, records = excluded.records",
            (path, size, mtime_ns, end, records),
        )

    def forget_segment(self, path: str) -> None:
        self.conn.execute("DELETE FROM segments WHERE path = ?", (path,))
