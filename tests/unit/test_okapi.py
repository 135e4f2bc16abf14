"""BM25 with other k1 and b than FTS5's: the index's own counts (term_stats) and the scoring
(okapi), checked against FTS5's bm25() itself at its constants."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memidx.index.connection import connect_reader
from memidx.index.documents import NewDocument
from memidx.index.store import Filters, Store, connect_memory, open_store
from memidx.index.sync import note_document
from memidx.index.term_stats import having, lengths, stems, totals, varints
from memidx.notes.note import parse_note
from memidx.search.lexical import rank_lexical
from memidx.search.okapi import Saturation, idf, okapi

NOTES = {
    "notes/lock.md": "---\ntags: [sqlite]\n---\n# File locking\nA lock on the database file.\n",
    "notes/busy.md": "# Busy timeout\nThe database is locked: " + "retry later. " * 40 + "\n",
    "notes/wal.md": "# WAL mode\nReaders and a writer; the lock is shared. Locks, locked.\n",
    "notes/git.md": "# Git hooks\nA post-commit hook runs after the commit.\n",
    "notes/many.md": "# Notes\n" + "lock " * 12 + "database " * 3 + "\n",
}
QUERIES = ["lock", "database lock", "locked database retry", "hook commit lock", "zzz lock"]


def add(store: Store, ref: str, text: str) -> int:
    note = parse_note(ref, text.encode(), 1 << 20)
    return store.upsert(note_document(note, f"blob-{ref}"))[0]


@pytest.fixture
def notes(store: Store) -> Store:
    for ref, text in NOTES.items():
        add(store, ref, text)
    return store


@pytest.mark.parametrize("query", QUERIES)
def test_fts5_constants_give_fts5s_own_bm25(notes: Store, query: str) -> None:
    """At k1 = 1.2 and b = 0.75 the scores computed from the index's counts are bm25()'s."""
    fts5 = rank_lexical(notes, query, Filters(), 10)
    ours = rank_lexical(notes, query, Filters(), 10, saturation=Saturation(1.2, 0.75))
    assert fts5.rows, query
    assert [r.id for r in ours.rows] == [r.id for r in fts5.rows]
    assert [r.score for r in ours.rows] == pytest.approx([r.score for r in fts5.rows], rel=1e-9)
    assert ours.match == fts5.match


def test_a_large_k1_lets_repeats_count(notes: Store) -> None:
    """At FTS5's k1 the note titled "File locking" (the title weighs 8) leads for "lock"; at
    k1 = 50, without length normalisation, the one that says "lock" twelve times does."""
    fts5 = rank_lexical(notes, "lock", Filters(), 10)
    linear = rank_lexical(notes, "lock", Filters(), 10, saturation=Saturation(50.0, 0.0))
    assert fts5.rows[0].source_ref == "notes/lock.md"
    assert linear.rows[0].source_ref == "notes/many.md"


def test_the_depth_is_kept(notes: Store) -> None:
    ranked = rank_lexical(notes, "lock", Filters(), 2, saturation=Saturation(2.0, 0.75))
    assert len(ranked.rows) == 2


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["locking", "locks", "lock"], ["lock", "lock", "lock"]),
        (["databases", "retry"], ["databas", "retri"]),
        (["🚀"], [None]),
    ],
)
def test_stems_are_the_index_tokenizers(
    store: Store, words: list[str], expected: list[str | None]
) -> None:
    assert stems(store.conn, words) == expected
    assert stems(store.conn, words) == expected  # the temp tables are made once, then reused


def test_lengths_and_totals_come_from_the_index(notes: Store) -> None:
    count, tokens = totals(notes.conn)
    sizes = lengths(notes.conn, range(1, 100))
    assert count == len(NOTES) == len(sizes)
    assert tokens == sum(sizes.values())
    notes.conn.execute("CREATE VIRTUAL TABLE temp.t USING fts5vocab(main, documents_fts, instance)")
    counted = dict(notes.conn.execute("SELECT doc, count(*) FROM temp.t GROUP BY doc").fetchall())
    assert sizes == counted


def test_an_empty_index_has_no_totals(store: Store) -> None:
    assert totals(store.conn) == (0, 0)


@pytest.mark.parametrize(
    ("blob", "values"),
    [
        (b"", []),
        (b"\x05\x00\x7f", [5, 0, 127]),
        (b"\x81\x00", [128]),
        (b"\x81~", [254]),
        (b"\xff" * 8 + b"\x01", [(1 << 64) - 255]),
    ],
)
def test_varints(blob: bytes, values: list[int]) -> None:
    assert varints(blob) == values


def test_records_take_their_own_constants() -> None:
    """A record (a conversation turn) is scored with Saturation.records; a note with k1, b."""
    counts = [{1: [0, 0, 0, 3], 2: [0, 0, 0, 3]}]
    how = Saturation(2.0, 0.75, (0.5, 0.0))
    scores = okapi(counts, [1.0], {1: 10, 2: 10}, 10.0, (8.0, 6.0, 6.0, 1.0), how=how, records={2})
    assert scores[1] == pytest.approx(3 * 3.0 / (3 + 2.0))
    assert scores[2] == pytest.approx(3 * 1.5 / (3 + 0.5))


@pytest.mark.parametrize(
    ("count", "having", "expected"),
    [(100, 1, 4.1946925361), (100, 50, 1e-6), (100, 99, 1e-6), (0, 0, 1e-6)],
)
def test_idf_is_fts5s(count: int, having: int, expected: float) -> None:
    assert idf(count, having) == pytest.approx(expected)


def test_a_read_only_index_is_scored(tmp_path: Path) -> None:
    """The query path opens the index read-only: the temp tables must still be made."""
    path = tmp_path / "index.sqlite"
    writer, _ = open_store(path, write=True)
    for ref, text in NOTES.items():
        add(writer, ref, text)
    writer.conn.commit()
    writer.conn.close()
    reader = Store(connect_reader(path, immutable=False))
    try:
        ranked = rank_lexical(reader, "database lock", Filters(), 10, saturation=Saturation())
        assert [r.source_ref for r in ranked.rows][:1] == ["notes/many.md"]
    finally:
        reader.conn.close()


# Words that fold, stem, tie and repeat: accents the index drops in Latin ("café") and in Greek
# only by memidx's fold ("ήλιος"), full-width letters, CJK, a word in most documents.
WORDS = ["lock", "locks", "locking", "database", "café", "Cafe", "naïve", "Straße", "ήλιος",
         "日本語", "İstanbul", "\uff46\uff55\uff4c\uff4c", "git", "rebase", "the", "x"]  # fmt: skip
TEXT = st.lists(st.sampled_from(WORDS), max_size=16).map(" ".join)
KIND, REF = st.sampled_from(["note", "turn"]), st.integers(0, 6)
UPSERT = st.tuples(KIND, REF, TEXT, st.lists(st.sampled_from(WORDS), max_size=3), TEXT)
CHANGES = st.lists(st.one_of(UPSERT, st.tuples(KIND, REF)), min_size=1, max_size=24)
QUERY = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)


Change = tuple[str, int] | tuple[str, int, str, list[str], str]  # a delete, or an upsert


def changed(store: Store, changes: list[Change]) -> None:
    """Documents upserted (empty fields too), updated and deleted, notes and records."""
    for change in changes:
        ref = f"{change[0]}/{change[1]}.md"
        if len(change) == 2:
            store.delete(change[0], [ref])
            continue
        kind, _, title, tags, body = change
        store.upsert(NewDocument(kind, ref, title, tags, (), body, 1, repr(change), None, {}))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CHANGES, st.lists(QUERY, min_size=1, max_size=3), st.integers(1, 8))
def test_at_fts5s_constants_any_index_ranks_as_fts5(
    changes: list[Change], queries: list[str], depth: int
) -> None:
    """Over random indexes (upserts, updates, deletes, empty fields, unicode), the counts read
    from the index give bm25()'s order, ties by ref included, and its scores."""
    conn = connect_memory()
    try:
        store = Store(conn)
        changed(store, changes)
        for query in queries:
            fts5 = rank_lexical(store, query, Filters(), depth)
            ours = rank_lexical(store, query, Filters(), depth, saturation=Saturation())
            assert [r.id for r in ours.rows] == [r.id for r in fts5.rows], query
            expected = pytest.approx([r.score for r in fts5.rows], rel=1e-9)
            assert [r.score for r in ours.rows] == expected
        count, tokens = totals(conn)
        sizes = lengths(conn, [int(r[0]) for r in conn.execute("SELECT id FROM documents")])
        assert (count, tokens) == (len(sizes), sum(sizes.values()))
        for word in ["lock", "ηλιος", "cafe"]:
            stem = stems(conn, [word])[0] or ""
            matching = conn.execute(
                "SELECT count(*) FROM documents_fts WHERE documents_fts MATCH ?", (word,)
            ).fetchone()[0]
            assert having(conn, stem) == matching, word
    finally:
        conn.close()


def test_fts5s_best_three_times_the_depth_are_scored_again(notes: Store) -> None:
    """With a depth of 1, the note FTS5 ranks second for "lock" is first at k1 50, b 0."""
    linear = rank_lexical(notes, "lock", Filters(), 1, saturation=Saturation(50.0, 0.0))
    assert [r.source_ref for r in linear.rows] == ["notes/many.md"]


def test_records_are_scored_with_records_constants(store: Store) -> None:
    """A record and a note of the same words score apart once records have their own pair."""
    for kind in ("note", "turn"):
        doc = NewDocument(kind, f"{kind}/a", "", (), (), "lock lock other words", 1, "h", None, {})
        store.upsert(doc)
    how = Saturation(1.2, 0.75, (50.0, 0.0))
    ranked = rank_lexical(store, "lock", Filters(), 10, saturation=how)
    scores = {r.source_kind: r.score for r in ranked.rows}
    assert scores["turn"] > scores["note"] * 1.2


def test_ties_go_by_ref_as_fts5s_do(store: Store) -> None:
    """Notes of the same words score alike: FTS5's order (by ref) holds, not the row ids'."""
    for ref in ("notes/b.md", "notes/a.md", "notes/c.md"):
        store.upsert(NewDocument("note", ref, "Lock", (), (), "a lock", 1, ref, None, {}))
    fts5 = rank_lexical(store, "lock", Filters(), 10)
    ours = rank_lexical(store, "lock", Filters(), 10, saturation=Saturation(2.0, 0.3))
    expected = ["notes/a.md", "notes/b.md", "notes/c.md"]
    assert [r.source_ref for r in fts5.rows] == [r.source_ref for r in ours.rows] == expected
