"""What BM25 is computed from, read from the full-text index itself: each query word's stem as
the index's tokenizer makes it, the documents that have it and how often in each column, each
document's length and the collection's size. FTS5's bm25() fixes k1 = 1.2 and b = 0.75; with
these, memidx.search.okapi computes BM25 with other values.

Lengths and totals come from FTS5's own `_docsize` and `_data` tables (varints, the format
fts5 documents in its source and keeps across versions); the words from `fts5vocab` tables made
in the connection's `temp` schema, which a read-only connection may write."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from memidx.notes.separators import TOKENIZER

COLUMNS = ("title", "tags", "aliases", "body")  # the order of the documents_fts table's columns
AVERAGES = 1  # the `_data` row that holds the row count and each column's token total


def varints(blob: bytes) -> list[int]:
    """The unsigned varints (SQLite's format: 7 bits a byte, high bit set on all but the last,
    a ninth byte of 8 bits) that make up `blob`."""
    found: list[int] = []
    at = 0
    while at < len(blob):
        value = 0
        for n in range(9):
            byte = blob[at]
            at += 1
            if n == 8:
                value = value << 8 | byte
                break
            value = value << 7 | byte & 0x7F
            if not byte & 0x80:
                break
        found.append(value)
    return found


TEMP_TABLES = (
    "memidx_terms_row USING fts5vocab(main, documents_fts, row)",
    "memidx_terms_at USING fts5vocab(main, documents_fts, instance)",
    f'memidx_words USING fts5(word, tokenize="{TOKENIZER}")',
    "memidx_stems USING fts5vocab(temp, memidx_words, instance)",
)


def _prepare(conn: sqlite3.Connection) -> None:
    """The temp tables this module reads through, made once per connection."""
    for table in TEMP_TABLES:
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{table}")


def stems(conn: sqlite3.Connection, words: Sequence[str]) -> list[str | None]:
    """Each word (folded as the index folds text) as the index's tokenizer stores it; None for
    a word it makes no token of."""
    _prepare(conn)
    conn.execute("DELETE FROM temp.memidx_words")
    conn.executemany(
        "INSERT INTO temp.memidx_words (rowid, word) VALUES (?, ?)",
        [(n, word) for n, word in enumerate(words, 1)],
    )
    found: dict[int, str] = {}
    for term, row in conn.execute("SELECT term, doc FROM temp.memidx_stems ORDER BY doc, offset"):
        found.setdefault(int(row), str(term))
    conn.execute("DELETE FROM temp.memidx_words")
    return [found.get(n) for n in range(1, len(words) + 1)]


def having(conn: sqlite3.Connection, stem: str) -> int:
    """How many documents have the stem, in any column."""
    row = conn.execute("SELECT doc FROM temp.memidx_terms_row WHERE term = ?", (stem,)).fetchone()
    return 0 if row is None else int(row[0])


def postings(conn: sqlite3.Connection, stem: str, ids: Iterable[int]) -> dict[int, list[int]]:
    """How often each of the documents `ids` that has the stem has it in each column."""
    wanted = set(ids)
    found: dict[int, list[int]] = {}
    column = {name: n for n, name in enumerate(COLUMNS)}
    rows = conn.execute("SELECT doc, col FROM temp.memidx_terms_at WHERE term = ?", (stem,))
    for doc, col in rows:
        if doc in wanted:
            found.setdefault(int(doc), [0] * len(COLUMNS))[column[str(col)]] += 1
    return found


def lengths(conn: sqlite3.Connection, ids: Iterable[int]) -> dict[int, int]:
    """Each document's length in tokens, over every column."""
    wanted = sorted(set(ids))
    marks = ", ".join("?" for _ in wanted)
    rows = conn.execute(
        f"SELECT id, sz FROM documents_fts_docsize WHERE id IN ({marks})", wanted
    ).fetchall()
    return {int(doc): sum(varints(bytes(size))) for doc, size in rows}


def totals(conn: sqlite3.Connection) -> tuple[int, int]:
    """The number of documents in the full-text index, and their tokens over every column."""
    row = conn.execute("SELECT block FROM documents_fts_data WHERE id = ?", (AVERAGES,)).fetchone()
    values = varints(bytes(row[0])) if row is not None else []
    return (values[0], sum(values[1:])) if values else (0, 0)
