"""A record an older memidx filed may hold a `<private>` span in its text or tags (filing has
replaced each with `[REDACTED:private]` since): the log keeps it verbatim, the index never
holds it, and an index an older record reader built is read again by the next sync. The index
holds a span, and the marker filing wrote for one, as a note's span, a stand-in no search reads
as a word: indexed as the marker, its words listed exactly the turns that held private text."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import Config
from memidx.haystack.frames import frame, new_record
from memidx.haystack.indexing import sync_records
from memidx.haystack.redaction import redacted
from memidx.index.store import Filters, Store, connect_memory, transaction
from memidx.notes.chunks import chunk_document
from memidx.private import PRIVATE_MARK, PRIVATE_STAND_IN
from memidx.search.lexical import lexical_search
from tests.index_rows import index_rows, rebuilt_rows

TEXT = "Deploy went fine.\n<private>\nThe vault key sits with kestrel.\n</private>\nheron next\n"
SEGMENT = "notes/haystack/writer/2026-01-01.000.krd"


@pytest.fixture
def config(tmp_path: Path) -> Config:
    """A haystack with a record filed before filing replaced private spans."""
    older = new_record("turn", TEXT, tags=("ops", "<private>acmecorp</private>"))
    (tmp_path / SEGMENT).parent.mkdir(parents=True)
    (tmp_path / SEGMENT).write_bytes(frame(older))
    return Config(root=tmp_path, index_path=tmp_path / "index.sqlite", in_git=False)


def found(store: Store, words: str, tag: str | None = None) -> list[str]:
    return [hit.ref for hit in lexical_search(store, words, Filters(tag=tag), 5).hits]


def test_a_span_an_older_memidx_filed_is_never_indexed(config: Config) -> None:
    store = Store(connect_memory())
    sync_records(config, store, full=True)

    assert found(store, "kestrel") == [] and found(store, "vault") == []
    assert found(store, "heron", tag="acmecorp") == [] and found(store, "acmecorp") == []
    assert found(store, "heron") == [f"{SEGMENT}@0"] == found(store, "heron", tag="ops")
    chunks = " ".join(text for (text,) in store.conn.execute("SELECT text FROM chunks"))
    assert "kestrel" not in chunks and PRIVATE_STAND_IN in chunks
    assert b"kestrel" in (config.root / SEGMENT).read_bytes()  # the log is never changed


def test_an_index_an_older_record_reader_built_is_read_again(config: Config) -> None:
    store = Store(connect_memory())
    sync_records(config, store, full=True)
    with transaction(store.conn):  # the rows record reader 3 wrote: the span in them
        (doc,) = store.conn.execute("SELECT id FROM documents").fetchone()
        store.conn.execute(
            "UPDATE documents SET body = ?, tags = ? WHERE id = ?",
            (TEXT, '["ops", "<private>acmecorp</private>"]', doc),
        )
        store.conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc,))
        store.conn.executemany(
            "INSERT INTO chunks (doc_id, seq, heading, line, text, text_hash) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
                (doc, c.seq, c.heading, c.line, c.text, c.text_hash)
                for c in chunk_document("", TEXT)
            ),
        )
        store.conn.execute("UPDATE state SET value = '3' WHERE key = 'record_reader'")
    assert found(store, "kestrel") != []  # the older rows took

    sync_records(config, store)

    assert found(store, "kestrel") == [] and index_rows(store) == rebuilt_rows(config)
    store.conn.close()


def test_a_span_filing_replaced_lists_no_turn_by_the_markers_words(tmp_path: Path) -> None:
    filed = [
        redacted(new_record("turn", "Deploy <private>with kestrel</private> heron next")),
        redacted(new_record("turn", "heron next, and the [REDACTED:public] wiki", tags=("ops",))),
        redacted(new_record("turn", f"heron: the stand-in {PRIVATE_STAND_IN} is U+2421")),
        redacted(new_record("turn", "heron again", tags=("<private>acmecorp</private>",))),
    ]
    (tmp_path / SEGMENT).parent.mkdir(parents=True)
    (tmp_path / SEGMENT).write_bytes(b"".join(frame(record) for record in filed))
    config = Config(root=tmp_path, index_path=tmp_path / "index.sqlite", in_git=False)
    store = Store(connect_memory())
    sync_records(config, store, full=True)

    assert found(store, "private") == [] and found(store, "heron", tag=PRIVATE_MARK) == []
    assert len(found(store, "redacted")) == 1  # the turn that says `[REDACTED:public]` itself
    hits = lexical_search(store, "heron", Filters(), 5).hits  # as output shows them
    shown = sorted(hit.snippet.replace("\x02", "").replace("\x03", "") for hit in hits)
    assert shown[0] == f"Deploy {PRIVATE_MARK} heron next"  # a span: the marker
    assert f"heron: the stand-in {PRIVATE_STAND_IN} is U+2421" in shown  # its own: as it is
    assert [hit.tags for hit in hits if "again" in hit.snippet] == [(PRIVATE_MARK,)]


@pytest.mark.parametrize(
    "text",
    ["Deploy [REDACTED:private]\ufe0e heron", "Deploy <private>kestrel</private>\ufe0e heron"],
)
def test_a_marker_followed_by_a_variation_selector_is_still_shown_as_the_marker(text: str) -> None:
    # the stand-in and U+FE0E after it are a record's own `␡`: the span was shown as `␡`
    from memidx.private import indexed_record_text, shown_private

    assert shown_private(indexed_record_text(text)) == f"Deploy {PRIVATE_MARK} heron"


def test_a_tag_filter_by_the_stand_in_finds_a_turns_own_tag_not_its_span(tmp_path: Path) -> None:
    # a record's tag filter read the bare stand-in, as rows held it before record reader 5:
    # `--tag ␡` then listed exactly the turns whose tag was private, never one tagged `␡`
    filed = [
        redacted(new_record("turn", "heron own", tags=(PRIVATE_STAND_IN,))),
        redacted(new_record("turn", "heron span", tags=("<private>acmecorp</private>",))),
    ]
    (tmp_path / SEGMENT).parent.mkdir(parents=True)
    (tmp_path / SEGMENT).write_bytes(b"".join(frame(record) for record in filed))
    config = Config(root=tmp_path, index_path=tmp_path / "index.sqlite", in_git=False)
    store = Store(connect_memory())
    sync_records(config, store, full=True)

    hits = lexical_search(store, "heron", Filters(tag=PRIVATE_STAND_IN), 5).hits
    assert [(hit.snippet.replace("\x02", "").replace("\x03", ""), hit.tags) for hit in hits] == [
        ("heron own", (PRIVATE_STAND_IN,))
    ]
