"""The store and lexical search on in-memory SQLite: upserts, ranking, fallback, filters."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from memidx.frozen import replace
from memidx.index.store import Filters, Store
from memidx.index.sync import note_document
from memidx.notes.note import parse_note
from memidx.search.lexical import MARK_START, lexical_search, match_line, rank_lexical


def add(store: Store, ref: str, text: str) -> int:
    note = parse_note(ref, text.encode(), 1 << 20)
    return store.upsert(note_document(note, f"blob-{ref}-{note.content_hash[:8]}"))[0]


def refs(store: Store, query: str, filters: Filters | None = None) -> Sequence[str]:
    return [h.ref for h in lexical_search(store, query, filters or Filters(), 10).hits]


def test_upsert_keeps_the_row_id_of_a_changed_document(store: Store) -> None:
    first = add(store, "notes/a.md", "# A\nold text\n")
    other = add(store, "notes/b.md", "# B\nother\n")
    again = add(store, "notes/a.md", "# A\nnew text\n")
    assert again == first != other
    assert refs(store, "new") == ["notes/a.md"]
    assert refs(store, "old") == []


def test_unchanged_upsert_does_not_rewrite_the_row(store: Store) -> None:
    add(store, "notes/a.md", "# A\ntext\n")
    changes = store.conn.total_changes
    add(store, "notes/a.md", "# A\ntext\n")
    assert store.conn.total_changes == changes


@pytest.mark.parametrize(
    "field",
    ["title", "tags", "aliases", "body", "body_line", "content_hash", "blob_id", "meta"],
)
def test_upsert_rewrites_a_row_that_differs_in_any_field(store: Store, field: str) -> None:
    """A note read again by another reader may differ in one field alone (YAML 1.2 booleans
    change only the tags): the row must become what the reader gives, not keep the old one."""
    note = parse_note("notes/a.md", b"---\ntags: [a]\n---\n# A\ntext\n", 1 << 20)
    doc = note_document(note, "blob-a")
    doc_id, _ = store.upsert(doc)
    other: dict[str, object] = {
        "title": "B", "tags": ("b",), "aliases": ("c",), "body": "other text\n",
        "body_line": 9, "content_hash": "other", "blob_id": "blob-b", "meta": {"lang": "en"},
    }  # fmt: skip
    changed = replace(doc, **{field: other[field]})

    assert store.upsert(changed) == (doc_id, True)
    assert store.document_rows("note") == [
        ("note", "notes/a.md", changed.title, json.dumps(list(changed.tags)),
         json.dumps(list(changed.aliases)), changed.body, changed.body_line,
         changed.content_hash, changed.blob_id, json.dumps(changed.meta))
    ]  # fmt: skip
    assert store.upsert(changed) == (doc_id, False)


def test_rename_keeps_the_row_id(store: Store) -> None:
    doc = add(store, "notes/a.md", "# A\nkept\n")
    store.rename("note", "notes/a.md", "notes/moved/a.md")
    assert store.document_states("note")["notes/moved/a.md"].id == doc
    assert refs(store, "kept") == ["notes/moved/a.md"]


def test_deleted_documents_leave_the_full_text_index(store: Store) -> None:
    add(store, "notes/a.md", "# A\nephemeral\n")
    store.delete("note", ["notes/a.md"])
    assert refs(store, "ephemeral") == []
    assert store.count() == 0


def test_stemming_finds_file_locking_for_file_lock(store: Store) -> None:
    add(store, "notes/win.md", "# Handles\nWindows file-locking by another process.\n")
    add(store, "notes/other.md", "# Other\nA file about nothing.\n")
    result = lexical_search(store, "file lock", Filters(), 10)
    assert (result.match, [h.ref for h in result.hits]) == ("and", ["notes/win.md"])


def test_diacritics_are_ignored(store: Store) -> None:
    add(store, "notes/cafe.md", "# Café\nThe naïve approach.\n")
    assert refs(store, "cafe naive") == ["notes/cafe.md"]


def test_ranked_or_answers_only_when_and_finds_nothing(store: Store) -> None:
    add(store, "notes/a.md", "# Alpha\nalpha beta\n")
    add(store, "notes/b.md", "# Beta\nbeta only\n")
    both = lexical_search(store, "alpha beta", Filters(), 10)
    assert (both.match, [h.ref for h in both.hits]) == ("and", ["notes/a.md"])
    some = lexical_search(store, "alpha gamma", Filters(), 10)
    assert (some.match, [h.ref for h in some.hits]) == ("or", ["notes/a.md"])
    none = lexical_search(store, "delta", Filters(), 10)
    assert (none.match, none.hits) == ("and", ())


def test_or_ranks_notes_matching_more_terms_first(store: Store) -> None:
    add(store, "notes/one.md", "# One\nsystemd units\n")
    add(store, "notes/two.md", "# Two\nsystemd timer on a remote host\n")
    assert refs(store, "systemd timer linger")[0] == "notes/two.md"


def test_a_note_about_a_topic_ranks_above_notes_that_mention_it(store: Store) -> None:
    add(store, "notes/mention.md", "# Docker disk\nOn windows and linux alike, prune images. " * 3)
    add(store, "notes/about.md", "---\ntitle: Windows gotchas\ntags: [windows]\n---\nPaths.\n")
    add(store, "notes/git.md", "# Line endings\nColleagues on Windows need autocrlf.\n")
    assert refs(store, "windows")[0] == "notes/about.md"


def test_filters_by_kind_path_prefix_and_tag(store: Store) -> None:
    add(store, "notes/git/a.md", "---\ntags: [git]\n---\nshared word\n")
    add(store, "notes/docker/b.md", "---\ntags: [docker]\n---\nshared word\n")
    assert refs(store, "shared", Filters(tag="Git")) == ["notes/git/a.md"]
    assert refs(store, "shared", Filters(path_prefix="notes/docker/")) == ["notes/docker/b.md"]
    assert refs(store, "shared", Filters(kind="turn")) == []
    assert len(refs(store, "shared", Filters(kind="note"))) == 2


@pytest.mark.parametrize(
    ("since", "until", "expected"),
    [
        # a local day west of UTC: 30 November 08:00Z to 1 December 08:00Z overlaps both
        ("2026-11-30T08:00:00Z", "2026-12-01T08:00:00Z", ["notes/d1.md", "notes/n30.md"]),
        # the UTC day of 30 November: the 30th in full, not the 1st
        ("2026-11-30T00:00:00Z", "2026-12-01T00:00:00Z", ["notes/n30.md"]),
        ("2026-11-30T23:59:59Z", None, ["notes/d1.md", "notes/n30.md"]),
        ("2026-12-01T00:00:00Z", None, ["notes/d1.md"]),
        (None, "2026-12-01T00:00:01Z", ["notes/d1.md", "notes/n29.md", "notes/n30.md"]),
        (None, "2026-11-30T00:00:00Z", ["notes/n29.md"]),
    ],
)
def test_a_note_dated_by_day_alone_is_in_when_its_day_overlaps_the_bounds(
    store: Store, since: str | None, until: str | None, expected: list[str]
) -> None:
    """Bounds are times; "2026-11-30" sorts before "2026-11-30T00:00:00Z", so a date alone
    compared as text fell out of the very day it names."""
    for name, day in (("n29", "2026-11-29"), ("n30", "2026-11-30"), ("d1", "2026-12-01")):
        add(store, f"notes/{name}.md", f"---\ncreated: {day}\n---\nshared word\n")

    assert sorted(refs(store, "shared", Filters(since=since, until=until))) == expected


def test_path_prefix_with_like_wildcards_is_literal(store: Store) -> None:
    add(store, "notes/a_b/x.md", "# X\nword\n")
    add(store, "notes/aXb/y.md", "# Y\nword\n")
    assert refs(store, "word", Filters(path_prefix="notes/a_b")) == ["notes/a_b/x.md"]


def test_hits_carry_snippet_with_marks_and_the_line_of_the_match(store: Store) -> None:
    body = "---\ntitle: T\n---\nintro\n\nsecond paragraph\nthe needle is here\n"
    add(store, "notes/n.md", body)
    hit = lexical_search(store, "needle", Filters(), 1).hits[0]
    assert MARK_START + "needle" in hit.snippet
    assert hit.line == 7
    assert body.splitlines()[hit.line - 1] == "the needle is here"


@pytest.mark.parametrize(
    ("body", "snippet", "line"),
    [
        ("a\nb\nc word\n", "c \x02word\x03", 2),
        ("a\nword\nword\n", "…a \x02word\x03", 1),
        ("no marks\n", "no marks", 0),
        # the matched word, not a longer word holding it ("lock" in "blocked")
        ("It was blocked.\n\nSome text.\nlock here\n", "…\x02lock\x03 here", 3),
        ("unlock it\nlock\n", "\x02lock\x03", 1),
        ("bathe lock\nthe lock\n", "…the \x02lock\x03", 1),
        ("a, lock\nlock\n", ", \x02lock\x03", 0),
    ],
)
def test_match_line(body: str, snippet: str, line: int) -> None:
    assert match_line(body, snippet) == line


def test_a_coverage_bonus_searches_any_word_and_lifts_notes_with_more_of_them(
    store: Store,
) -> None:
    add(store, "notes/rotate.md", "# Rotate\nrotate the logs\n")
    add(store, "notes/both.md", "# Notes on logs\nrotate logs when the disk is full, and more\n")
    for n in range(8):
        add(store, f"notes/other{n}.md", f"# Other {n}\nunrelated words\n")
    strict = lexical_search(store, "rotate disk", Filters(), 10)
    assert (strict.match, [h.ref for h in strict.hits]) == ("and", ["notes/both.md"])
    plain = rank_lexical(store, "rotate disk", Filters(), 10, bonus=0.001)
    lifted = rank_lexical(store, "rotate disk", Filters(), 10, bonus=10.0)
    assert plain.match == lifted.match == "or"
    assert len(plain.rows) == len(lifted.rows) == 2
    assert plain.rows[0].source_ref != "notes/both.md"
    assert lifted.rows[0].source_ref == "notes/both.md"


def _every_match(store: Store, match: str) -> list[tuple[str, float]]:
    """Every matching document by (bm25, ref), computed the plain way: the reference."""
    rows = store.conn.execute(
        """SELECT d.source_ref, bm25(documents_fts, 8.0, 6.0, 6.0, 1.0) AS score
           FROM documents_fts JOIN documents d ON d.id = documents_fts.rowid
           WHERE documents_fts MATCH ? ORDER BY score, d.source_ref""",
        (match,),
    ).fetchall()
    return [(str(ref), -float(score)) for ref, score in rows]


@pytest.mark.parametrize("limit", [1, 5, 10, 12, 40, 100])
@pytest.mark.parametrize(("copies", "order"), [(12, 1), (12, -1), (3, -1), (20, -1)])
def test_the_best_rows_and_their_ties_at_the_cut_come_as_the_plain_query_gives_them(
    store: Store, limit: int, copies: int, order: int
) -> None:
    """Without filters, lexical() ranks before it joins; ties of bm25 (copies of one note)
    straddle every cut here, shorter and longer than what it keeps past the cut (TIE_SLACK),
    stored in and against the order of their refs, and must fall by ref as the plain query
    orders them."""
    for copy in range(copies)[::order]:
        for n, text in enumerate(["alpha beta", "alpha", "alpha gamma gamma", "beta only"]):
            add(store, f"notes/c{copy:02}/n{n}.md", f"# Note {n}\n{text}\n")
    for match in ('"alpha" OR "beta"', '"alpha"', '"gamma"', '"nothing"'):
        found = [(r.source_ref, r.score) for r in store.lexical(match, Filters(), limit)]
        assert found == _every_match(store, match)[:limit]


def test_a_full_text_row_without_its_document_costs_no_place_in_the_best_rows(
    store: Store,
) -> None:
    """An index the full-text side of which names a row the documents table lacks (damage)
    still gives the best rows the documents have, as many as asked for."""
    for n in range(30):
        add(store, f"notes/n{n:02}.md", f"# Note {n}\nalpha {'beta ' * (n % 4)}\n")
    store.conn.execute(
        "INSERT INTO documents_fts(rowid, title, tags, aliases, body) VALUES (99999, ?, '', '', ?)",
        ("alpha alpha", "alpha alpha alpha"),
    )
    for limit in (1, 5, 10):
        found = [(r.source_ref, r.score) for r in store.lexical('"alpha"', Filters(), limit)]
        assert found == _every_match(store, '"alpha"')[:limit]
        assert len(found) == limit
