"""A note's `<private>` spans are never indexed: a word that stands only inside one finds
nothing (words, meaning, tags, title), the model never reads it, and every line keeps its
number, so a hit after the span still points at its line. The note's file is never changed;
an index built before (note reader 8) is read again by the next sync."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memidx.config import Config
from memidx.embed.job import embed_missing
from memidx.index.store import Filters, Store, VectorStore, connect_memory, transaction
from memidx.index.sync import SETTINGS, ingest, note_source, sync
from memidx.notes.chunks import chunk_document
from memidx.notes.note import parse_note
from memidx.private import PRIVATE_STAND_IN
from memidx.search.lexical import lexical_search
from memidx.search.searcher import Searcher
from tests.helpers import FakeEmbedder, add_note, add_older_note
from tests.index_rows import index_rows, rebuilt_rows

HIDDEN = PRIVATE_STAND_IN  # what the index holds of a span (output shows the marker)
REF = "notes/deploy.md"
NOTE = """---
title: Deploy <private>for Acme</private>
tags: [ops, <private>acmecorp</private>]
aliases: [<private>globex</private>, rollout]
---

# Deploy runbook

Restart the gateway first.

<private>
## Vault

The vault key sits with kestrel.
Ask Marta.
</private>

## Rollback

Rollback uses the heron script.
"""
PRIVATE_WORDS = ("acme", "acmecorp", "globex", "vault", "kestrel", "marta")
HERON_LINE = NOTE.split("\n").index("Rollback uses the heron script.") + 1


def found(store: Store, words: str, tag: str | None = None) -> list[tuple[str, int]]:
    hits = lexical_search(store, words, Filters(tag=tag), 5).hits
    return [(hit.ref, hit.line) for hit in hits]


@pytest.mark.parametrize("word", PRIVATE_WORDS)
def test_a_word_only_inside_a_private_span_finds_nothing(store: Store, word: str) -> None:
    add_note(store, REF, NOTE)
    assert found(store, word) == []


def test_public_words_find_the_note_at_their_line_after_the_span(store: Store) -> None:
    add_note(store, REF, NOTE)
    assert found(store, "heron") == [(REF, HERON_LINE)]
    assert found(store, "gateway") == [(REF, HERON_LINE - 11)]
    assert found(store, "heron", tag="ops") == [(REF, HERON_LINE)]
    assert found(store, "heron", tag="acmecorp") == []  # a private tag filters nothing in


def test_the_indexed_rows_hold_no_private_word_and_every_line(store: Store) -> None:
    doc = add_note(store, REF, NOTE)
    title, tags, aliases, body = store.conn.execute(
        "SELECT title, tags, aliases, body FROM documents WHERE id = ?", (doc,)
    ).fetchone()
    chunks = store.conn.execute("SELECT heading, text FROM chunks WHERE doc_id = ?", (doc,))
    indexed = f"{title} {tags} {aliases} {body} {chunks.fetchall()}".lower()
    assert [word for word in PRIVATE_WORDS if word in indexed] == []
    assert (title, tags, aliases) == (
        f"Deploy {HIDDEN}",
        f'["ops", "{HIDDEN}"]',
        f'["{HIDDEN}", "rollout"]',
    )
    assert body.count("\n") == NOTE.split("\n---\n", 1)[1].count("\n")


def test_the_model_never_reads_a_private_word(store: Store, tmp_path: Path) -> None:
    add_note(store, REF, NOTE)
    fake = FakeEmbedder()
    embed_missing(store, fake)
    read = " ".join(text for call in fake.calls for text in call).lower()
    assert "heron" in read and [word for word in PRIVATE_WORDS if word in read] == []
    config = Config(root=tmp_path, index_path=tmp_path / "none.sqlite", model=fake.name)
    searcher = Searcher(store, config, _embedder=fake)
    hits = searcher.search("kestrel vault marta", Filters(), 5, "hybrid").hits
    assert [hit for hit in hits if hit.match != "meaning"] == []  # no word of it found
    assert [(h.ref, h.line) for h in searcher.search("heron", Filters(), 5, "hybrid").hits] == [
        (REF, HERON_LINE)
    ]


@pytest.mark.parametrize(
    "body",
    [
        "a <PRIVATE>kestrel</Private> b\nc\n",  # any case
        "a <private >kestrel</private > b\nc\n",  # a space before `>`
        "a <private>\nkestrel\n</private> b\nc\n",  # across lines
        "a <private>x <private>y</private> kestrel</private> b\nc\n",  # nested: to its own close
        "a b\nc\n<private>\nkestrel\nmore\n",  # unclosed: to the end
    ],
)
def test_the_span_rules_are_those_output_masks_by(body: str) -> None:
    note = parse_note("notes/n.md", f"# T\n{body}".encode(), 1 << 20)
    assert "kestrel" not in note.body and HIDDEN in note.body
    assert note.body.count("\n") == body.count("\n") + 1  # every line kept


@pytest.mark.parametrize(
    "front",
    [
        "summary: <private>x\ntitle: Kestrel\ntags: [kestrel]\nlang: en</private>",  # over keys
        "title: Plan <private>\ntags: [kestrel]",  # unclosed: to the end of the note
        "title: Plan\ntags:\n  - ops\n  - <private>a\n  - kestrel</private>",  # over list items
        'title: "Plan <private>and\n  kestrel</private> too"',  # a quoted value over lines
    ],
)
def test_a_span_yaml_reads_across_values_hides_them_whole(front: str) -> None:
    note = parse_note(REF, f"---\n{front}\n---\n# Plan\nbody\n".encode(), 1 << 20)
    assert "kestrel" not in f"{note.title} {note.tags} {note.body}".lower(), note
    assert [tag for tag in note.tags if tag not in ("ops", HIDDEN)] == [], note.tags


def test_a_private_first_heading_is_no_title() -> None:
    note = parse_note(REF, b"<private>\n# Globex merger\n</private>\n# Plan\ntext\n", 1 << 20)
    assert (note.title, note.body) == ("Plan", f"{HIDDEN}\n\n\n# Plan\ntext\n")
    alone = parse_note(REF, b"<private>\n# Globex merger\n</private>\ntext\n", 1 << 20)
    assert alone.title == "deploy"  # the file's name, as for a note without a heading


def test_chunks_after_the_span_keep_their_lines_and_headings() -> None:
    note = parse_note(REF, NOTE.encode(), 1 << 20)
    chunks = chunk_document(note.title, note.body, note.body_line)
    rollback = NOTE.split("\n").index("## Rollback") + 1
    assert [(c.heading, c.line) for c in chunks] == [
        ("Deploy runbook", NOTE.split("\n").index("# Deploy runbook") + 1),
        ("Rollback", rollback),
    ]


@pytest.fixture
def config(tmp_path: Path) -> Config:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "deploy.md").write_text(NOTE, encoding="utf-8")
    (tmp_path / "notes" / "other.md").write_text("# Other\n\nunrelated words\n", encoding="utf-8")
    return Config(root=tmp_path, index_path=tmp_path / "index.sqlite", in_git=False)


@pytest.fixture
def older(config: Config) -> Iterator[Store]:
    """An index as note reader 8 built it: the note's private words in its rows."""
    store = Store(connect_memory())
    ingest(config, store, note_source(config))
    (blob, meta), *_ = store.conn.execute(
        "SELECT blob_id, meta FROM documents WHERE source_ref = ?", (REF,)
    )
    with transaction(store.conn):
        store.delete("note", [REF])
        doc = add_older_note(store, REF, NOTE)
        store.conn.execute(
            "UPDATE documents SET blob_id = ?, meta = ? WHERE id = ?", (blob, meta, doc)
        )
        store.set_state(SETTINGS, "notes_dir=notes; max_note_bytes=1048576; note_reader=8")
    yield store
    store.conn.close()


def test_an_index_built_before_is_read_again_by_the_next_sync(config: Config, older: Store) -> None:
    assert found(older, "kestrel") != []  # the older rows took
    fake = FakeEmbedder()
    embed_missing(older, fake)

    sync(config, older)

    assert found(older, "kestrel") == [] and index_rows(older) == rebuilt_rows(config)
    fake.calls.clear()
    embed_missing(older, fake)  # what the background embed runs next
    read = " ".join(text for call in fake.calls for text in call).lower()
    assert "kestrel" not in read and VectorStore(older.conn).missing(fake.name) == []


def test_a_note_marked_private_later_is_upserted_as_a_rebuild_reads_it(config: Config) -> None:
    path = config.root / "notes" / "deploy.md"
    path.write_text(NOTE.replace("<private>", "").replace("</private>", ""), encoding="utf-8")
    store = Store(connect_memory())
    ingest(config, store, note_source(config))
    assert found(store, "kestrel") != []
    path.write_text(NOTE, encoding="utf-8")

    sync(config, store)

    assert found(store, "kestrel") == [] and index_rows(store) == rebuilt_rows(config)
    assert path.read_text(encoding="utf-8") == NOTE  # the file is never changed
    store.conn.close()
