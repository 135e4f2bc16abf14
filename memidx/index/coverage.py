"""Which of a query's words each document has, by the full-text index's own stemming."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence


def matched_terms(
    conn: sqlite3.Connection, quoted_terms: Sequence[str], ids: Sequence[int]
) -> dict[int, int]:
    """How many of the terms (each already an FTS5 string literal) each document matches, in
    any column; documents that match none are absent. One small query per term."""
    if not ids or not quoted_terms:
        return {}
    marks = ", ".join("?" for _ in ids)
    counts: dict[int, int] = {}
    for term in quoted_terms:
        rows = conn.execute(
            f"SELECT rowid FROM documents_fts WHERE documents_fts MATCH ? AND rowid IN ({marks})",
            (term, *ids),
        )
        for (rowid,) in rows:
            counts[int(rowid)] = counts.get(int(rowid), 0) + 1
    return counts


def known_terms(conn: sqlite3.Connection, quoted_terms: Sequence[str]) -> int:
    """How many of the terms (each already an FTS5 string literal) any document has."""
    found = 0
    for term in quoted_terms:
        row = conn.execute(
            "SELECT 1 FROM documents_fts WHERE documents_fts MATCH ? LIMIT 1", (term,)
        ).fetchone()
        found += row is not None
    return found


def bm25_of(
    conn: sqlite3.Connection, match: str, ids: Sequence[int], weights: Sequence[float]
) -> dict[int, float]:
    """The BM25 (higher is better) of the documents `ids` that match the FTS5 expression;
    the others are absent."""
    if not ids:
        return {}
    marks = ", ".join("?" for _ in ids)
    columns = ", ".join(str(w) for w in weights)
    rows = conn.execute(
        f"""SELECT rowid, bm25(documents_fts, {columns}) FROM documents_fts
            WHERE documents_fts MATCH ? AND rowid IN ({marks})""",
        (match, *ids),
    )
    return {int(i): -float(s) for i, s in rows}
