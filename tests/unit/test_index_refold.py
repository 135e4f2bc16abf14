# ruff: noqa: RUF001
"""An index of schema 4 (unicode61 alone: Greek and Cyrillic accents kept, new emoji read as
letters) is upgraded by the next writer: its full-text index is made anew, folded, and nothing
else is lost, its vectors least of all."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.embed.job import embed_missing
from memidx.errors import IndexUnusable
from memidx.index.connection import connect
from memidx.index.schema import create_schema, mark_built
from memidx.index.schema_version import SCHEMA_VERSION
from memidx.index.store import Filters, Store, VectorStore, open_store
from memidx.search.lexical import lexical_search
from tests.helpers import FakeEmbedder, add_note

# schema 4's full-text index and triggers, as memidx wrote them
SCHEMA_4_FTS = """
DROP TRIGGER documents_ai; DROP TRIGGER documents_ad; DROP TRIGGER documents_au;
DROP TABLE documents_fts;
CREATE VIRTUAL TABLE documents_fts USING fts5(
    title, tags, aliases, body,
    content='documents', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER documents_ai AFTER INSERT ON documents BEGIN
    INSERT INTO documents_fts(rowid, title, tags, aliases, body)
    VALUES (new.id, new.title, new.tags, new.aliases, new.body);
END;
CREATE TRIGGER documents_ad AFTER DELETE ON documents BEGIN
    INSERT INTO documents_fts(documents_fts, rowid, title, tags, aliases, body)
    VALUES ('delete', old.id, old.title, old.tags, old.aliases, old.body);
END;
CREATE TRIGGER documents_au AFTER UPDATE OF title, tags, aliases, body ON documents BEGIN
    INSERT INTO documents_fts(documents_fts, rowid, title, tags, aliases, body)
    VALUES ('delete', old.id, old.title, old.tags, old.aliases, old.body);
    INSERT INTO documents_fts(rowid, title, tags, aliases, body)
    VALUES (new.id, new.title, new.tags, new.aliases, new.body);
END;
PRAGMA user_version = 4;
"""
NOTES = {
    "notes/greek.md": "# Καλημέρα\n\nη γλώσσα μας\n",
    "notes/emoji.md": "# Deploy\n\ndeploy🥺fails again\n",
    "notes/plain.md": "# Plain\n\nnothing special\n",
}


def _schema_4_index(path: Path) -> tuple[list[tuple[object, ...]], tuple[int, int, int]]:
    """An index written by memidx before the fold; its documents and vector counts."""
    conn = connect(path)
    create_schema(conn)
    conn.executescript(SCHEMA_4_FTS)
    store = Store(conn)
    for ref, text in NOTES.items():
        add_note(store, ref, text)
    embed_missing(store, FakeEmbedder())
    mark_built(conn)
    rows = store.document_rows("note")
    counts = VectorStore(conn).counts("test/fake")
    conn.close()
    return rows, counts


def _found(store: Store, query: str) -> list[str]:
    return [h.ref for h in lexical_search(store, query, Filters(), 5).hits]


def test_an_index_of_schema_4_is_folded_anew_by_the_next_writer(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    rows, counts = _schema_4_index(path)

    store, said = open_store(path, write=True)

    assert said == f"upgraded the index at {path} from schema 4 to {SCHEMA_VERSION}"
    assert (
        store.document_rows("note") == rows
        and VectorStore(store.conn).counts("test/fake") == counts
    )
    assert _found(store, "γλωσσα") == ["notes/greek.md"]
    assert _found(store, "fails") == ["notes/emoji.md"]
    add_note(store, "notes/greek.md", "# Καλημέρα\n\nκαινούργια λέξη\n")  # the triggers fold
    assert _found(store, "γλωσσα") == [] and _found(store, "λεξη") == ["notes/greek.md"]
    store.conn.close()


def test_a_search_of_a_schema_4_index_says_what_upgrades_it_and_that_nothing_is_lost(
    tmp_path: Path,
) -> None:
    """A reader cannot search it: the query's folded words miss the old full-text index's."""
    path = tmp_path / "index.sqlite"
    _schema_4_index(path)

    with pytest.raises(IndexUnusable) as refused:
        open_store(path, write=False)

    assert str(refused.value) == (
        f"the index at {path} was built by an older memidx (schema 4, this one knows "
        f"{SCHEMA_VERSION}) (run "
        "`memidx sync` (or `make ingest`) once: it upgrades the index in place, keeping its "
        "vectors; nothing is lost)"
    )
