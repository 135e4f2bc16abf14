"""A forgotten document's vectors go with it, except those of a text another chunk holds."""

from __future__ import annotations

from memidx.embed.job import embed_missing
from memidx.haystack.forgotten import drop_record
from memidx.index.store import Store
from tests.helpers import FakeEmbedder, add_note

SAME = "# Same\n\nRotate the deploy key every quarter.\n"


def texts(store: Store) -> int:
    return int(store.conn.execute("SELECT count(*) FROM vectors").fetchone()[0])


def test_a_text_another_document_holds_keeps_its_vector(store: Store) -> None:
    add_note(store, "notes/a.md", SAME)
    add_note(store, "notes/b.md", SAME)  # the same chunk text: one vector for both
    add_note(store, "notes/c.md", "# Other\n\nCaches evict by LRU.\n")
    embed_missing(store, FakeEmbedder())
    assert texts(store) == 2

    drop_record(store, "note", "notes/a.md")
    assert texts(store) == 2  # notes/b.md holds it: its vector stays

    drop_record(store, "note", "notes/b.md")
    assert texts(store) == 1  # no chunk holds it now: gone, as a rebuild has none

    drop_record(store, "note", "notes/c.md", forgotten=False)
    assert texts(store) == 1  # deleted, not forgotten: kept as a cache
