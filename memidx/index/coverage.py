"""Which of a query's words each document has, by the full-text index's own stemming."""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Sequence

GAP = 64  # row ids this far apart are asked in separate ranges

# FTS5 evaluates a MATCH once per value of `rowid IN (...)` (40 times slower than one range
# at 100 ids), but seeks a `rowid BETWEEN` range: the documents asked about are read by the
# ranges they lie in, and the rows between them that match are dropped here.


def id_ranges(ids: Sequence[int], gap: int = GAP) -> list[tuple[int, int]]:
    """The smallest and largest of each run of sorted ids less than `gap` apart."""
    ranges: list[tuple[int, int]] = []
    for doc in sorted(set(ids)):
        if ranges and doc - ranges[-1][1] < gap:
            ranges[-1] = (ranges[-1][0], doc)
        else:
            ranges.append((doc, doc))
    return ranges


def _in_ranges(
    conn: sqlite3.Connection, select: str, match: str, ids: Sequence[int]
) -> list[tuple[int, float]]:
    """(rowid, the selected value) of the documents `ids` that match, asked by id_ranges."""
    wanted = set(ids)
    found: list[tuple[int, float]] = []
    for low, high in id_ranges(ids):
        rows = conn.execute(
            f"""SELECT rowid, {select} FROM documents_fts
                WHERE documents_fts MATCH ? AND rowid BETWEEN ? AND ?""",
            (match, low, high),
        )
        found += [(int(i), float(v)) for i, v in rows if int(i) in wanted]
    return found


def matched_terms(
    conn: sqlite3.Connection, quoted_terms: Sequence[str], ids: Sequence[int]
) -> dict[int, int]:
    """How many of the terms (each already an FTS5 string literal) each document matches, in
    any column; documents that match none are absent. Small queries per term."""
    return {doc: mask.bit_count() for doc, mask in matched_masks(conn, quoted_terms, ids).items()}


def matched_masks(
    conn: sqlite3.Connection, quoted_terms: Sequence[str], ids: Sequence[int]
) -> dict[int, int]:
    """Which of the terms each document matches, in any column: bit i for the i-th term;
    documents that match none are absent. One small query per term."""
    if not ids or not quoted_terms:
        return {}
    masks: dict[int, int] = {}
    for bit, term in enumerate(quoted_terms):
        for rowid, _ in _in_ranges(conn, "0", term, ids):
            masks[rowid] = masks.get(rowid, 0) | 1 << bit
    return masks


def rarity(conn: sqlite3.Connection, quoted_terms: Sequence[str]) -> list[float]:
    """Each term's inverse document frequency, as BM25 weighs it: ln((N - n + 0.5) / (n +
    0.5) + 1) over the N documents, n of which have the term (one count per term)."""
    total = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    found: list[float] = []
    for term in quoted_terms:
        (having,) = conn.execute(
            "SELECT count(*) FROM documents_fts WHERE documents_fts MATCH ?", (term,)
        ).fetchone()
        found.append(math.log((total - having + 0.5) / (having + 0.5) + 1.0))
    return found


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
    columns = ", ".join(str(w) for w in weights)
    return {i: -s for i, s in _in_ranges(conn, f"bm25(documents_fts, {columns})", match, ids)}
