"""A recalled conversation turn comes with its session's neighbouring turns: the lookup by
filing order (memidx/index/lookup_rows.py) and the block that shows them (block.py)."""

from __future__ import annotations

import json

from memidx.agents.block import Recalled, recall_block, shown_around
from memidx.agents.gate import Signal
from memidx.agents.recall import Candidate, shown_keys
from memidx.index.coverage import known_terms
from memidx.index.lookup_rows import session_neighbours
from memidx.index.store import Store


def _turn(store: Store, ref: str, body: str, session: str) -> int:
    cursor = store.conn.execute(
        "INSERT INTO documents (source_kind, source_ref, title, body, content_hash, meta) "
        "VALUES ('turn', ?, '', ?, ?, ?)",
        (ref, body, ref, json.dumps({"session": session, "ts": "2026-12-01T10:00:00Z"})),
    )
    return int(cursor.lastrowid or 0)


def test_the_neighbours_are_the_sessions_turns_just_before_and_after(store: Store) -> None:
    ids = [
        _turn(store, "a1", "a one", "a"),
        _turn(store, "b1", "b one", "b"),  # another session, filed in between
        _turn(store, "a2", "a two", "a"),
        _turn(store, "a3", "a three", "a"),
        _turn(store, "a4", "a four", "a"),
    ]

    near = session_neighbours(store, ids[2], "a", 1)

    assert [ref for ref, _, _ in near] == ["a1", "a3"]
    assert [ref for ref, _, _ in session_neighbours(store, ids[2], "a", 2)] == ["a1", "a3", "a4"]
    assert [ref for ref, _, _ in session_neighbours(store, ids[0], "a", 1)] == ["a2"]
    assert session_neighbours(store, ids[1], "b", 1) == []


def test_known_terms_counts_the_words_any_document_has(store: Store) -> None:
    _turn(store, "a1", "Caroline went hiking", "a")

    assert known_terms(store.conn, ['"caroline"', '"hiking"', '"jolene"']) == 2


def test_the_block_shows_a_turn_with_its_neighbours_and_their_keys() -> None:
    hit = Recalled("", "turn-ref", 0, "I adopted a dog", "turn", around=("Did you?", "Yes, Coco"))
    candidate = Candidate(
        "turn:turn-ref", hit, Signal(0.6, 0.5, kind="turn"), 1, "s", ("turn:x", "turn:y")
    )

    block = recall_block([hit])

    assert "same session: Did you?" in block and "same session: Yes, Coco" in block
    assert shown_around(block, hit)
    assert shown_keys(block, [candidate]) == ("turn:turn-ref", "turn:x", "turn:y")


def test_a_tight_budget_drops_the_neighbours_before_the_hit() -> None:
    hit = Recalled("", "turn-ref", 0, "I adopted a dog", "turn", around=("x" * 300, "y" * 300))
    candidate = Candidate("turn:turn-ref", hit, Signal(0.6, 0.5, kind="turn"), 1, "s", ("turn:x",))

    block = recall_block([hit], budget=400)

    assert "I adopted a dog" in block and "same session" not in block
    assert shown_keys(block, [candidate]) == ("turn:turn-ref",)
    assert shown_keys("", [candidate]) == ()
