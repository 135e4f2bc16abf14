"""Pseudo-relevance feedback on the words (RM3, a ranking candidate): the relevance model and
the grown query's weights (rm3.py, pure), and the ranking they give over a real index
(expansion.py through lexical.rank_lexical)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from memidx.config import Config
from memidx.embed.job import embed_missing
from memidx.index.store import Filters, Store
from memidx.search.lexical import lexical_search, rank_lexical
from memidx.search.rm3 import Expansion, expanded_weights, feeds_back, relevance_model
from memidx.search.searcher import Searcher
from tests.helpers import FakeEmbedder
from tests.unit.test_okapi import add

Feedback = list[tuple[float, list[str]]]
MODELS: list[tuple[Feedback, dict[str, float]]] = [
    ([], {}),
    ([(1.0, ["a", "b"])], {"a": 0.5, "b": 0.5}),
    ([(3.0, ["a"]), (1.0, ["b", "b"])], {"a": 0.75, "b": 0.25}),
    ([(1.0, ["a", "a", "a", "b"]), (1.0, ["b"])], {"a": 0.375, "b": 0.625}),
    ([(2.0, ["a"]), (0.0, ["b"]), (-1.0, ["c"])], {"a": 1.0}),
    ([(1.0, []), (1.0, ["b"])], {"b": 0.5}),
]


@pytest.mark.parametrize(("feedback", "expected"), MODELS)
def test_relevance_model_weighs_words_by_their_documents_scores(
    feedback: list[tuple[float, list[str]]], expected: dict[str, float]
) -> None:
    assert relevance_model(feedback) == pytest.approx(expected)


MODEL = {"statin": 0.3, "the": 0.25, "cholesterol": 0.2, "2019": 0.1, "lipid": 0.1, "x": 0.05}
SHOWN = {"statin": "statins", "the": "the", "2019": "2019", "x": "x"}
HAVING = {"statin": 5, "the": 90, "cholesterol": 8, "2019": 3, "lipid": 30, "x": 1}


@pytest.mark.parametrize(
    ("how", "expected"),
    [
        # the query's word gains its share; "the" is too common (90 of 100), "2019" a number,
        # "x" one letter; "lipid" in 30 of 100 is above 0.2 of the documents
        (Expansion(words=10, keep=0.5), {"statin": 1.0 + 0.6, "cholesterol": 0.4}),
        (
            Expansion(words=10, keep=0.8, common=0.5),
            {"statin": 1.0 + 0.25 * 0.5, "cholesterol": 0.25 * 2 / 6, "lipid": 0.25 / 6},
        ),
        (Expansion(words=1, keep=0.5), {"statin": 2.0}),
        (Expansion(keep=1.0), {"statin": 1.0}),
        (Expansion(words=0), {"statin": 1.0}),
        (
            Expansion(keep=0.5, stopwords=frozenset({"statins"})),
            {"statin": 1.0, "cholesterol": 1.0},
        ),
    ],
)
def test_grown_query_keeps_its_words_at_one_and_adds_the_models_best(
    how: Expansion, expected: dict[str, float]
) -> None:
    weights = expanded_weights(["statin"], MODEL, how, shown=SHOWN, having=HAVING, count=100)
    assert weights == pytest.approx(expected)


def test_grown_query_of_no_words_is_empty() -> None:
    assert expanded_weights([], MODEL, Expansion(), shown=SHOWN, having=HAVING, count=100) == {}


NOTES = {
    "notes/a.md": "# Statin therapy\nStatins lower cholesterol and LDL in the blood.\n",
    "notes/b.md": "# Statin trial\nA statin trial: cholesterol, LDL and heart disease.\n",
    "notes/c.md": "# Lowering LDL\nDiet lowers cholesterol and LDL in the blood too.\n",
    "notes/d.md": "# Garden\nTomatoes need sun and water in the garden.\n",
    "notes/e.md": "# Kitchen\nWater boils; tomatoes cook; the garden waits.\n",
}


@pytest.fixture
def notes(store: Store) -> Store:
    for ref, text in NOTES.items():
        add(store, ref, text)
    return store


def test_feedback_brings_up_a_note_without_the_querys_word(notes: Store) -> None:
    """ "statin" matches a and b only; their shared words (cholesterol, LDL) bring c, which
    never says statin, and leave out the notes that share none but stopwords."""
    plain = rank_lexical(notes, "statin", Filters(), 10)
    how = Expansion(docs=2, common=1.0, stopwords=frozenset({"a", "and", "in", "the"}))
    grown = rank_lexical(notes, "statin", Filters(), 10, expansion=how)
    assert [r.source_ref for r in plain.rows] == ["notes/a.md", "notes/b.md"]
    refs = [r.source_ref for r in grown.rows]
    assert refs[:3] in (
        ["notes/a.md", "notes/b.md", "notes/c.md"],
        ["notes/b.md", "notes/a.md", "notes/c.md"],
    )
    assert "notes/d.md" not in refs
    assert all(r.score > 0 for r in grown.rows)


def test_no_feedback_weight_ranks_as_bm25_by_any_word(notes: Store) -> None:
    """keep = 1: no word is added, the pool is ranked by plain BM25 of the query's words."""
    plain = rank_lexical(notes, "garden water", Filters(), 10)
    kept = rank_lexical(notes, "garden water", Filters(), 10, expansion=Expansion(keep=1.0))
    assert [r.id for r in kept.rows] == [r.id for r in plain.rows]
    assert [r.score for r in kept.rows] == pytest.approx([r.score for r in plain.rows], rel=1e-9)
    assert kept.match == "or"


def test_feedback_with_no_first_hit_finds_nothing(notes: Store) -> None:
    assert rank_lexical(notes, "zzz", Filters(), 10, expansion=Expansion()).rows == []


def test_a_shallower_ranking_is_the_head_of_a_deeper_one(notes: Store) -> None:
    """The first pass is read `how.pool` deep whatever the depth asked: with only the depth's
    rows, `-k 1` took its feedback from one note and scored the top note otherwise."""
    how = Expansion(docs=2, common=1.0, stopwords=frozenset({"a", "and", "in", "the"}))
    deep = rank_lexical(notes, "statin", Filters(), 10, expansion=how).rows
    shallow = rank_lexical(notes, "statin", Filters(), 1, expansion=how).rows
    assert [(r.id, r.score) for r in shallow] == [(r.id, r.score) for r in deep[:1]]


def test_added_words_weigh_what_keep_leaves_them(notes: Store) -> None:
    """keep = 0.99: the words the feedback adds share 0.01 of the weight, so a note with none
    of the query's words (c) scores a sliver of those that have them."""
    how = Expansion(docs=2, keep=0.99, common=1.0, stopwords=frozenset({"a", "and", "in", "the"}))
    rows = {
        r.source_ref: r.score
        for r in rank_lexical(notes, "statin", Filters(), 10, expansion=how).rows
    }
    assert 0 < rows["notes/c.md"] < 0.05 * min(rows["notes/a.md"], rows["notes/b.md"])


def test_the_searcher_ranks_the_words_by_the_grown_query(notes: Store, tmp_path: Path) -> None:
    """Searcher(expansion=...) is how the bench runs the candidate, by words and in hybrid:
    without it passed on, the candidate's rows were the default's."""
    fake = FakeEmbedder()
    embed_missing(notes, fake)
    config = Config(root=tmp_path, index_path=tmp_path / "none.sqlite", model=fake.name)
    how = Expansion(docs=2, common=1.0, stopwords=frozenset({"a", "and", "in", "the"}))
    grown = Searcher(notes, config, expansion=how, _embedder=fake)
    words = grown.search("statin", Filters(), 10, "bm25").hits
    assert "notes/c.md" in [h.ref for h in words]
    hybrid = grown.search("statin", Filters(), 10, "hybrid").hits
    assert "bm25" in next(h.ranks for h in hybrid if h.ref == "notes/c.md")


@pytest.mark.parametrize("word", ["NEAR", "AND", "OR", "NOT", "ήλιος", "straße", "東京", "naïve"])
def test_an_added_word_is_searched_as_a_word(store: Store, word: str) -> None:
    """A word the feedback adds reaches FTS5 quoted and folded as the index folds it: an FTS5
    operator's name is a word, and an accented Greek word finds the note that has it."""
    for n in range(2):
        add(store, f"notes/s{n}.md", f"# Statin {n}\nstatin {word} {word}.\n")
    add(store, "notes/only.md", f"# Only\n{word} alone.\n")
    add(store, "notes/other.md", "# Other\nnothing to see.\n")
    rows = rank_lexical(
        store, "statin", Filters(), 10, expansion=Expansion(docs=2, common=1.0)
    ).rows
    found = {r.source_ref: r.score for r in rows}
    assert found.keys() == {"notes/s0.md", "notes/s1.md", "notes/only.md"}
    assert all(score > 0 for score in found.values())


@pytest.mark.parametrize("query", ["statin", "the of", 'statin "* NEAR(x y)', "ήλιος"])
def test_one_note_or_a_query_of_stopwords_ranks_without_error(store: Store, query: str) -> None:
    add(store, "notes/a.md", "# Statin\nthe statin of ήλιος.\n")
    rows = rank_lexical(store, query, Filters(), 10, expansion=Expansion()).rows
    assert [r.source_ref for r in rows] == ["notes/a.md"]


def test_a_note_feedback_alone_brings_up_lacks_the_querys_one_word(notes: Store) -> None:
    """One word: the grown query's rows need not have it either. The ranking said "and", so
    every row's evidence had every word and note c, which never says statin, had coverage 1
    (the relevance and the learned re-ranker's feature)."""
    how = Expansion(docs=2, common=1.0, stopwords=frozenset({"a", "and", "in", "the"}))
    result = lexical_search(notes, "statin", Filters(), 10, expansion=how)
    coverage = {h.ref: h.evidence.coverage for h in result.hits if h.evidence is not None}
    assert coverage == {"notes/a.md": 1.0, "notes/b.md": 1.0, "notes/c.md": 0.0}
    assert result.match == "or"


def test_two_forms_of_one_word_grow_the_query_as_the_word_does(notes: Store) -> None:
    """ "statin statins" is one stem: its added words' share was scaled by two query words
    while the stem weighed 1, so they weighed twice what `keep` leaves them."""
    how = Expansion(docs=2, common=1.0, stopwords=frozenset({"a", "and", "in", "the"}))
    one = rank_lexical(notes, "statin", Filters(), 10, expansion=how).rows
    two = rank_lexical(notes, "statin statins", Filters(), 10, expansion=how).rows
    assert [r.id for r in two] == [r.id for r in one]
    assert [r.score for r in two] == pytest.approx([r.score for r in one], rel=1e-9)


@pytest.mark.parametrize(
    ("scores", "words", "how", "grows"),
    [
        ([5.0, 1.0], 1, Expansion(), True),  # no rule: every query with a first hit
        ([], 3, Expansion(), False),
        ([5.0, 4.0], 2, Expansion(least=3), False),
        ([5.0, 4.0], 3, Expansion(least=3), True),
        ([10.0, 9.0, 6.0, 1.0], 3, Expansion(docs=3, flat=0.5), True),  # the 3rd: 6 of 10
        ([10.0, 9.0, 4.0, 9.0], 3, Expansion(docs=3, flat=0.5), False),  # 4 of 10
        ([10.0, 6.0], 3, Expansion(docs=3, flat=0.5), True),  # fewer: the last
        ([10.0], 3, Expansion(docs=3, flat=0.5), True),  # one document: nothing ahead of it
        ([0.0, 0.0], 3, Expansion(flat=0.5), False),
        ([10.0, 9.0, 9.0], 2, Expansion(docs=3, least=3, flat=0.5), False),
    ],
)
def test_a_query_grows_when_long_enough_and_its_first_hits_close(
    scores: list[float], words: int, how: Expansion, grows: bool
) -> None:
    assert feeds_back(scores, words, how) is grows


def test_a_query_that_does_not_grow_ranks_as_without_feedback(notes: Store) -> None:
    """ "garden": d (its title) far ahead of e, the second: no new words, the rows, scores and
    match of the plain ranking. "statin": a and b even, it grows (c comes up)."""
    stop = frozenset({"a", "and", "in", "the"})
    how = Expansion(docs=2, common=1.0, stopwords=stop, flat=0.9)
    plain = rank_lexical(notes, "garden", Filters(), 10)
    gated = rank_lexical(notes, "garden", Filters(), 10, expansion=how)
    ungated = rank_lexical(notes, "garden", Filters(), 10, expansion=replace(how, flat=0.0))
    assert [(r.id, r.score) for r in gated.rows] == [(r.id, r.score) for r in plain.rows]
    assert gated.match == plain.match == "and"
    assert [r.score for r in ungated.rows] != [r.score for r in plain.rows]
    grown = rank_lexical(notes, "statin", Filters(), 10, expansion=how)
    assert "notes/c.md" in [r.source_ref for r in grown.rows]
