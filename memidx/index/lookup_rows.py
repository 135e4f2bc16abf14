"""Documents looked up by kind and ref: what agents' recall gate reads of each hit."""

from __future__ import annotations

from collections.abc import Sequence

from memidx.index.documents import Store


def documents_at(
    store: Store, refs: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], tuple[int, str]]:
    """(row id, title and body) of the documents at (kind, ref); a missing one is left out."""
    found: dict[tuple[str, str], tuple[int, str]] = {}
    for kind, ref in refs:
        row = store.conn.execute(
            "SELECT id, title, body FROM documents WHERE source_kind = ? AND source_ref = ?",
            (kind, ref),
        ).fetchone()
        if row is not None:
            found[(kind, ref)] = (int(row[0]), f"{row[1]}\n{row[2]}")
    return found


def recent_records(store: Store, drawer: str, limit: int) -> list[tuple[str, str, str, str]]:
    """(kind, ref, ts, body) of the newest turns and facts filed in `drawer`, newest first."""
    rows = store.conn.execute(
        """SELECT source_kind, source_ref, json_extract(meta, '$.ts') AS ts, body
           FROM documents
           WHERE source_kind IN ('turn', 'fact') AND json_extract(meta, '$.drawer') = ?
           ORDER BY ts DESC LIMIT ?""",
        (drawer, limit),
    )
    return [(str(k), str(r), str(t or ""), str(b)) for k, r, t, b in rows]
