"""A recalled conversation turn comes with its session's neighbouring turns: the lookup by
filing order (memidx/index/lookup_rows.py) and the block that shows them (block.py)."""

from __future__ import annotations

import json
from pathlib import Path

from memidx.agents.block import Recalled, recall_block, shown_around
from memidx.agents.gate import Signal
from memidx.agents.recall import Candidate, Recaller, shown_keys
from memidx.config import Config
from memidx.index.coverage import known_terms
from memidx.index.lookup_rows import session_neighbours
from memidx.index.open import open_store
from memidx.index.schema import mark_built
from memidx.index.store import Store


def _turn(store: Store, ref: str, body: str, session: str, ts: str = "2026-12-01T10:00:00Z") -> int:
    cursor = store.conn.execute(
        "INSERT INTO documents (source_kind, source_ref, title, body, content_hash, meta) "
        "VALUES ('turn', ?, '', ?, ?, ?)",
        (ref, body, ref, json.dumps({"session": session, "ts": ts})),
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


def two_machines_turns(store: Store) -> dict[str, int]:
    """One session's turns filed on two machines in turn (a1 b1 a2 b2), as the clone of the
    first indexes them: its own, then the other's after a pull."""
    times = {"a1": "10:00:01", "b1": "10:00:02", "a2": "10:00:03", "b2": "10:00:04"}
    return {
        ref: _turn(store, ref, f"turn {ref}", "s", f"2026-12-01T{times[ref]}Z")
        for ref in ("a1", "a2", "b1", "b2")
    }


def test_a_sessions_neighbours_are_in_filing_order_whichever_clone_indexed_them(
    store: Store,
) -> None:
    """Rows alone put a pulled machine's turns after this clone's own: a1's next turn was a2
    here and b1 on the other machine (whose rows run b1 b2 a1 a2)."""
    ids = two_machines_turns(store)

    assert [ref for ref, _, _ in session_neighbours(store, ids["a1"], "s", 1)] == ["b1"]
    assert [ref for ref, _, _ in session_neighbours(store, ids["a2"], "s", 1)] == ["b1", "b2"]
    assert [ref for ref, _, _ in session_neighbours(store, ids["b2"], "s", 2)] == ["b1", "a2"]


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


class Found(Recaller):
    """A Recaller over a real index whose search finds the given turns, all relevant."""

    def __init__(self, index: Path, found: list[tuple[str, int]]) -> None:
        super().__init__(Config(root=index.parent, index_path=index))
        self.found = found

    def candidates(self, prompt: str) -> list[Candidate]:
        del prompt
        signal = Signal(0.9, 1.0, relevance=None, kind="turn")
        return [
            Candidate(f"turn:{ref}", Recalled("", ref, 0, f"{ref} text", "turn"), signal, doc, "a")
            for ref, doc in self.found
        ]


def _session(tmp_path: Path) -> tuple[Path, list[int]]:
    """An index of one session's five turns, t1 to t5, filed in order; their row ids."""
    index = tmp_path / "index.sqlite"
    store, _ = open_store(index, write=True)
    with store.conn:
        ids = [_turn(store, f"t{n}", f"t{n} text", "a") for n in range(1, 6)]
    mark_built(store.conn)
    store.conn.close()
    return index, ids


PROMPT = "what did we decide about the deployment window"


def test_a_turn_injected_before_in_the_session_is_not_shown_again_as_a_neighbour(
    tmp_path: Path,
) -> None:
    index, ids = _session(tmp_path)
    recaller = Found(index, [("t3", ids[2])])

    first = recaller.recall(PROMPT, seen=["turn:t2"])  # t2 came as a hit of an earlier prompt

    assert "same session: t4 text" in first.block and "t2 text" not in first.block
    assert first.keys == ("turn:t3", "turn:t4")


def test_a_turn_is_shown_once_in_a_block_though_two_hits_neighbour_it(tmp_path: Path) -> None:
    index, ids = _session(tmp_path)
    recaller = Found(index, [("t2", ids[1]), ("t3", ids[2]), ("t5", ids[4])])

    done = recaller.recall(PROMPT)

    assert [done.block.count(f"{ref} text") for ref in ("t1", "t2", "t3", "t4", "t5")] == [
        1, 1, 1, 1, 1
    ]  # fmt: skip
    assert sorted(done.keys) == ["turn:t1", "turn:t2", "turn:t3", "turn:t4", "turn:t5"]


TOKEN = "xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx"  # a Slack bot token


def test_the_neighbours_and_the_digest_mask_a_turn_filed_before_redaction(store: Store) -> None:
    """A hit's snippet is masked (search masks it); the turns shown around it, and those the
    session-start digest lists, were injected into the agent's context as they were filed."""
    from memidx.agents.digest import _records  # pyright: ignore[reportPrivateUsage]
    from memidx.agents.recall import _around  # pyright: ignore[reportPrivateUsage]

    ids = [_turn(store, "a1", f"User: deploy with {TOKEN}", "a"), _turn(store, "a2", "hit", "a")]
    store.conn.execute("UPDATE documents SET meta = json_set(meta, '$.drawer', 'web')")
    hit = Recalled("", "a2", 0, "hit", "turn")
    candidate = Candidate("turn:a2", hit, Signal(0.6, 0.5, kind="turn"), ids[1], "a")

    around = _around(store, candidate).recalled.around
    listed = _records(store, "web")

    assert around == ("User: deploy with [REDACTED:slack-token]",)
    assert TOKEN not in repr(listed) and "[REDACTED:slack-token]" in repr(listed)


def test_the_neighbours_and_the_digest_show_a_turns_span_as_the_marker(store: Store) -> None:
    """A record's row holds a span as its stand-in (record reader 5): shown bare, the agent
    read `␡` where the turn's private text stood, and a `␡` the turn says itself as a span."""
    from memidx.agents.digest import _records  # pyright: ignore[reportPrivateUsage]
    from memidx.agents.recall import _around  # pyright: ignore[reportPrivateUsage]
    from memidx.private import PRIVATE_MARK, indexed_record_text

    said = indexed_record_text("Title\nUser: deploy [REDACTED:private] then \u2421 (U+2421)")
    ids = [_turn(store, "a1", said, "a"), _turn(store, "a2", "hit", "a")]
    store.conn.execute("UPDATE documents SET meta = json_set(meta, '$.drawer', 'web')")
    hit = Recalled("", "a2", 0, "hit", "turn")
    candidate = Candidate("turn:a2", hit, Signal(0.6, 0.5, kind="turn"), ids[1], "a")

    around = _around(store, candidate).recalled.around
    listed = [item.snippet for item in _records(store, "web") if item.ref == "a1"]

    shown = f"User: deploy {PRIVATE_MARK} then \u2421 (U+2421)"
    assert around == (f"Title {shown}",) and listed == [shown]  # lines joined in the block
