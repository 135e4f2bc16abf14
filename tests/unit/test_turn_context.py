"""Conversation turns re-ordered in their sessions' context (memidx/search/context.py): the
pure re-ordering, the neighbours' lookup, and the hybrid search on in-memory SQLite."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from memidx.config import Config
from memidx.embed.job import embed_missing
from memidx.index.lookup_rows import adjacent_turns
from memidx.index.store import Filters, Store, VectorStore
from memidx.notes.chunks import chunk_document
from memidx.search import searcher as searcher_module
from memidx.search import turn_context
from memidx.search.context import TurnEvidence, reorder_turns, turn_relevance
from memidx.search.query import Terms
from memidx.search.searcher import Searcher
from memidx.search.turn_context import Cosines
from tests.helpers import FakeEmbedder, add_note


def _turn(store: Store, ref: str, body: str, session: str, agent: str = "") -> int:
    meta = {"session": session, "agent": agent, "ts": "2026-12-01T10:00:00Z"}
    cursor = store.conn.execute(
        "INSERT INTO documents (source_kind, source_ref, title, body, content_hash, meta) "
        "VALUES ('turn', ?, '', ?, ?, ?)",
        (ref, body, ref, json.dumps(meta)),
    )
    doc_id = int(cursor.lastrowid or 0)
    VectorStore(store.conn).replace_chunks(doc_id, chunk_document("", body, 0))
    return doc_id


@pytest.fixture
def talk(store: Store, tmp_path: Path) -> Store:
    """Two sessions of Melanie and Caroline, and a note about hobbies."""
    _turn(store, "m1", "Melanie: which hobby did you take up this spring?", "s1", "Melanie")
    _turn(store, "c1", "Caroline: pottery, I go to a class on Sundays", "s1", "Caroline")
    _turn(store, "m2", "Melanie: my hobby is painting, I take my kids along", "s2", "Melanie")
    _turn(store, "c2", "Caroline: that sounds fun", "s2", "Caroline")
    add_note(store, "notes/hobby.md", "# Hobby ideas\nTake up pottery or painting.\n")
    return store


def test_a_turns_adjacent_turns_are_in_filing_order_whichever_clone_indexed_them(
    store: Store,
) -> None:
    """The turn just before and after a hit, by the turns' times: rows put a pulled machine's
    turns after this clone's own (two_machines_turns), which made a1's next turn a2."""
    from tests.unit.test_recall_neighbours import two_machines_turns

    ids = two_machines_turns(store)
    found = adjacent_turns(store, [ids["a1"], ids["a2"], ids["b1"]])

    assert found[ids["a1"]][1] == (ids["b1"],)
    assert found[ids["a2"]][1] == (ids["b1"], ids["b2"])
    assert found[ids["b1"]][1] == (ids["a1"], ids["a2"])


def _refs(store: Store, tmp_path: Path, query: str, *, turns: bool) -> list[str]:
    fake = FakeEmbedder()
    embed_missing(store, fake)
    config = Config(root=tmp_path, index_path=tmp_path / "none.sqlite", model=fake.name)
    searcher = Searcher(store, config, turns=turns, _embedder=fake)
    return [hit.ref for hit in searcher.search(query, Filters(), 10, "hybrid").hits]


def test_the_turn_that_answers_the_question_asked_just_before_it_ranks_up(
    talk: Store, tmp_path: Path
) -> None:
    query = "Which hobby did Caroline take up?"
    before = _refs(talk, tmp_path, query, turns=False)
    after = _refs(talk, tmp_path, query, turns=True)

    # c1 shares no word with the question, but follows the turn that asked it, and the
    # question names its speaker; the note keeps its place
    assert before.index("c1") == 4
    assert after.index("c1") == 2  # the first turn after the question (and the note)
    assert after.index("notes/hobby.md") == before.index("notes/hobby.md")


@pytest.mark.parametrize(
    ("fused", "scores", "expected"),
    [
        # notes (no score) keep their places; turns fill theirs, best first
        ("n1 t1 n2 t2 t3", {"t1": 0.1, "t2": 0.9, "t3": 0.5}, "n1 t2 n2 t3 t1"),
        ("n1 n2", {}, "n1 n2"),
        ("t1 t2", {"t1": 0.5, "t2": 0.5}, "t1 t2"),  # ties keep the fused order
    ],
)
def test_turns_are_re_ordered_among_their_own_places(
    fused: str, scores: dict[str, float], expected: str
) -> None:
    ranked = [(key, 1.0 / n) for n, key in enumerate(fused.split(), 1)]

    found = reorder_turns(ranked, scores)

    assert [key for key, _ in found] == expected.split()
    assert dict(found) == dict(ranked)  # each keeps its fused score


def test_a_neighbour_that_matches_the_query_lifts_a_turn() -> None:
    alone = TurnEvidence(0.4, 2.0, 4.0, 0.5, 0.1, 0.0, 0.0, speaker_named=False)
    answered_around = TurnEvidence(0.4, 2.0, 4.0, 0.5, 0.6, 4.0, 1.0, speaker_named=False)

    assert turn_relevance(answered_around) > turn_relevance(alone)


def test_the_adjacent_turns_are_the_sessions_own_just_before_and_after(store: Store) -> None:
    ids = [
        _turn(store, "a1", "a one", "a", "Ann"),
        _turn(store, "b1", "b one", "b", "Bob"),  # another session, filed in between
        _turn(store, "a2", "a two", "a", "Ann"),
        _turn(store, "a3", "a three", "a", "Cy"),
    ]
    cursor = store.conn.execute(
        "INSERT INTO documents (source_kind, source_ref, title, body, content_hash, meta) "
        "VALUES ('note', 'notes/x.md', 'x', 'x', 'x', '{}')"
    )
    note = int(cursor.lastrowid or 0)

    found = adjacent_turns(store, [ids[2], ids[1], ids[3], note])

    assert found == {
        ids[2]: ("Ann", (ids[0], ids[3])),
        ids[1]: ("Bob", ()),
        ids[3]: ("Cy", (ids[2],)),
    }


def test_a_turn_the_context_brings_up_from_below_the_evidence_cut_shows_its_relevance(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hybrid search computes the evidence of the fused top 30 (what the learned re-ranker
    orders), the turn context re-orders the turns of the top 40: a turn it moves from places
    31-40 into the shown hits has its evidence computed late, so it shows a relevance like
    every other hit (searcher.py)."""
    fake = FakeEmbedder()
    query = "Which hobby did Caroline take up?"
    spelled: dict[int, list[str]] = {}  # the fake embedder's dimensions, each with fresh words
    for n in range(20_000):
        spelled.setdefault(fake.bucket(f"w{n}"), []).append(f"w{n}")
    fresh = {dim: iter(words) for dim, words in spelled.items()}
    asked = [fake.bucket(word) for word in ("hobby", "caroline", "take")]
    other = [d for d in range(fake.dim) if d not in {fake.bucket(w) for w in query.lower().split()}]

    def text(alike: int, unlike: int) -> str:
        """Words none of the query's, `alike` of them in its dimensions: the cosine falls as
        `unlike` grows."""
        dims = [*asked[:alike], *other[:unlike]]
        return " ".join(next(fresh[dim]) for dim in dims)

    _turn(
        store, "question", "Melanie: which hobby did Caroline take up this spring?", "s", "Melanie"
    )
    answer = _turn(store, "answer", text(3, 10), "s", "Caroline")  # no word of the question
    for k in range(20):  # every word of the query among 40 others: found by words
        add_note(
            store, f"notes/words{k}.md", f"# Words {k}\nhobby caroline take up {text(0, 40)}\n"
        )
    for k in range(20):  # found by meaning, seventeen of them closer to the query than the answer
        body = text(3, 4 + k // 4 if k < 17 else 14)
        if k % 3:
            add_note(store, f"notes/meaning{k}.md", f"{body}\n")
        else:
            _turn(store, f"other{k}", body, f"other{k}", "Bob")
    embed_missing(store, fake)
    places: list[tuple[int, int]] = []

    def in_context(
        store: Store,
        vectors: Cosines,
        query: NDArray[np.float32],
        terms: Terms,
        fused: Sequence[tuple[int, float]],
        *,
        cosines: Mapping[int, float],
    ) -> list[tuple[int, float]]:
        found = turn_context.in_context(store, vectors, query, terms, fused, cosines=cosines)
        places.append(([d for d, _ in fused].index(answer), [d for d, _ in found].index(answer)))
        return found

    monkeypatch.setattr(searcher_module, "in_context", in_context)
    config = Config(root=tmp_path, index_path=tmp_path / "none.sqlite", model=fake.name)

    hits = Searcher(store, config, _embedder=fake).search(query, Filters(), 10, "hybrid").hits

    ((before, after),) = places
    assert 30 <= before < 40 and after < 10  # brought up from below the evidence's cut
    (shown,) = [hit for hit in hits if hit.ref == "answer"]
    assert shown.relevance is not None and 0.0 < shown.relevance < 1.0
    assert all(hit.relevance is not None for hit in hits)
