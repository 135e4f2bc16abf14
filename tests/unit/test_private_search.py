"""A note's `<private>` span is indexed as a stand-in that no search reads as a word: indexed as
`[REDACTED:private]`, its words ("redacted", "private") and the marker as a tag listed exactly
the notes that hold a span. A hit still shows the marker where the span stood, and a note that
says those words outside a span is still found by them."""

from __future__ import annotations

from typing import cast

import pytest

from memidx.index.browse import NoteRow
from memidx.index.store import Filters, Store
from memidx.mcp.answers import note_data
from memidx.private import PRIVATE_MARK, PRIVATE_STAND_IN, own_stand_ins
from memidx.search.lexical import Hit, lexical_search
from memidx.search.masking import masked_hits
from memidx.search.recent import recent
from memidx.secrets.detect import find_secrets
from tests.helpers import add_note

REF = "notes/deploy.md"
NOTE = """---
title: Deploy <private>for Acme</private>
tags: [ops, <private>acmecorp</private>]
aliases: [<private>globex</private>, rollout]
---

# Deploy runbook

Restart the gateway first. <private>The vault key sits with kestrel.</private> Then wait.

## Rollback <private>at Acme</private>

Rollback uses the heron script.
"""
SAYS = "# Access\n\nThe repository is private; its logs are redacted before upload.\n"


def refs(store: Store, words: str, tag: str | None = None) -> list[str]:
    return [hit.ref for hit in lexical_search(store, words, Filters(tag=tag), 5).hits]


@pytest.mark.parametrize(
    "words", ["private", "redacted", "REDACTED:private", "[REDACTED:private]", "redacted private"]
)
def test_the_marker_words_find_only_a_note_that_says_them(store: Store, words: str) -> None:
    add_note(store, REF, NOTE)
    add_note(store, "notes/access.md", SAYS)
    assert refs(store, words) == ["notes/access.md"]


@pytest.mark.parametrize("tag", [PRIVATE_MARK.lower(), "redacted", "private", PRIVATE_STAND_IN])
def test_the_marker_as_a_tag_filters_no_note_in(store: Store, tag: str) -> None:
    add_note(store, REF, NOTE)
    assert refs(store, "heron", tag=tag) == []
    assert refs(store, "heron", tag="ops") == [REF]


def test_a_hit_shows_the_marker_where_the_span_stood(store: Store) -> None:
    add_note(store, REF, NOTE)
    [hit] = lexical_search(store, "gateway", Filters(), 5).hits
    assert hit.title == f"Deploy {PRIVATE_MARK}"
    assert hit.tags == ("ops", PRIVATE_MARK)
    assert f"first. {PRIVATE_MARK} Then" in hit.snippet.replace("\x02", "").replace("\x03", "")
    assert hit.line == NOTE.split("\n").index("# Deploy runbook") + 3
    assert PRIVATE_STAND_IN not in f"{hit.title} {hit.tags} {hit.snippet}"


def test_a_hit_under_a_heading_with_a_span_shows_the_marker(store: Store) -> None:
    add_note(store, REF, NOTE)
    [hit] = lexical_search(store, "heron", Filters(), 5).hits
    assert hit.heading == f"Rollback {PRIVATE_MARK}"


def test_the_dense_text_holds_no_marker_word(store: Store) -> None:
    doc = add_note(store, REF, NOTE)
    rows = store.conn.execute("SELECT heading, text FROM chunks WHERE doc_id = ?", (doc,))
    read = str(rows.fetchall()).lower()
    assert "heron" in read and "redacted" not in read and "private" not in read


def test_mcp_get_shows_the_marker_for_a_title_or_tag_the_index_holds_hidden() -> None:
    row = NoteRow(REF, f"Deploy {PRIVATE_STAND_IN}", ("ops", PRIVATE_STAND_IN), {}, None)
    data = note_data(row, "# Deploy runbook\n")
    assert (data["title"], data["tags"]) == (f"Deploy {PRIVATE_MARK}", ["ops", PRIVATE_MARK])


def test_a_url_password_in_a_span_is_shown_as_the_marker_not_a_secret(store: Store) -> None:
    # the detector read the stand-in as the URL's password: `postgres[REDACTED:basic-auth]db`
    add_note(store, "notes/db.md", "# Db\n\npostgres://app:<private>hunter2</private>@db/app\n")
    [hit] = lexical_search(store, "postgres", Filters(), 5).hits
    shown = hit.snippet.replace("\x02", "").replace("\x03", "")
    assert f"postgres://app:{PRIVATE_MARK}@db/app" in shown


def test_a_rows_own_stand_in_character_is_shown_as_it_is() -> None:
    # a note's or a record's row holds a `␡` of its own as OWN_STAND_IN, a span's bare
    said = f"the stand-in is {PRIVATE_STAND_IN} (U+2421)"
    turn = Hit(1, "turn", "haystack/a.krd@1", "turn", 1.0, own_stand_ins(said), 1)
    note = Hit(2, "note", REF, "Deploy", 1.0, said, 1)
    assert [hit.snippet for hit in masked_hits((turn, note))] == [
        said,
        f"the stand-in is {PRIVATE_MARK} (U+2421)",
    ]


def test_a_notes_own_stand_in_character_is_shown_as_it_is(store: Store) -> None:
    # a note about control pictures: its `␡` is no span, and is shown so
    text = (
        f"---\ntitle: The {PRIVATE_STAND_IN} symbol\n---\n\n"
        f"{PRIVATE_STAND_IN} is delete. <private>kestrel</private>{PRIVATE_STAND_IN} zebra\n"
    )
    add_note(store, "notes/pictures.md", text)
    [hit] = lexical_search(store, "zebra", Filters(), 5).hits
    assert hit.title == f"The {PRIVATE_STAND_IN} symbol"
    shown = hit.snippet.replace("\x02", "").replace("\x03", "").strip()
    assert shown == f"{PRIVATE_STAND_IN} is delete. {PRIVATE_MARK}{PRIVATE_STAND_IN} zebra"


def test_a_notes_own_stand_in_tag_filters_it_in(store: Store) -> None:
    add_note(store, "notes/pictures.md", f"---\ntags: [{PRIVATE_STAND_IN}]\n---\n\nzebra\n")
    add_note(store, REF, NOTE)  # its span tag is no `␡` of its own
    assert refs(store, "zebra heron", tag=PRIVATE_STAND_IN) == ["notes/pictures.md"]


def test_recent_shows_the_marker_where_the_span_stood(store: Store) -> None:
    # the session-start list and the MCP `recent` tool: no raw stand-in in any label
    add_note(store, REF, NOTE)
    found = recent(store, 5, notes_dir="notes", project=None, kind=None)
    [item] = cast(list[dict[str, object]], found["items"])
    assert (item["title"], item["tags"]) == (f"Deploy {PRIVATE_MARK}", ["ops", PRIVATE_MARK])
    assert f"first. {PRIVATE_MARK} Then" in str(item["snippet"])
    assert PRIVATE_STAND_IN not in str(item)


def test_a_span_followed_by_a_variation_selector_is_shown_as_the_marker(store: Store) -> None:
    # the stand-in and U+FE0E after it are a note's own `␡`: the span was shown as `␡`
    add_note(store, "notes/pictures.md", "# Pictures\n\n<private>kestrel</private>\ufe0e zebra\n")
    [hit] = lexical_search(store, "zebra", Filters(), 5).hits
    shown = hit.snippet.replace("\x02", "").replace("\x03", "").strip()
    assert shown.endswith(f"{PRIVATE_MARK} zebra"), shown


@pytest.mark.parametrize(
    "text",
    [
        f"password: Zk9qW2{PRIVATE_STAND_IN}mX7pL4vB8n",  # a password that holds a `␡`
        f"postgres://app:Zk9q{PRIVATE_STAND_IN}W2mX7pL4@db/app",
    ],
)
def test_a_password_holding_the_stand_in_is_a_secret(text: str) -> None:
    # read as a span's stand-in, it was a reference, and went through every check
    found = find_secrets(text)
    assert [PRIVATE_STAND_IN in text[f.start : f.end] for f in found] == [True], found


def test_a_url_password_that_is_only_a_spans_stand_in_is_none() -> None:
    assert find_secrets(f"postgres://app:{PRIVATE_STAND_IN}@db/app") == []
