"""The shipped relevance holds on held-out data: on the TIL test split (by words, so no model is
needed), its Brier score beats the dev base rate given to every hit, and the best hit of a query
that some note answers looks more relevant than the best hit of a query that none answers."""

from __future__ import annotations

from pathlib import Path
from statistics import mean

import pytest

from memidx.index.store import Filters, open_store
from memidx.search.lexical import lexical_search
from tests.benchmark.judged import JudgedSet, til_set
from tests.benchmark.til_eval import til_folder


@pytest.fixture(scope="module")
def til(tmp_path_factory: pytest.TempPathFactory) -> JudgedSet:
    folder = til_folder()
    if not folder.is_dir():
        pytest.skip(f"no TIL data at {folder} (set DATA to the shared data folder)")
    return til_set(tmp_path_factory.mktemp("calibration"), folder.parent)


def judged_hits(til: JudgedSet, split: str) -> list[tuple[float, int, int, bool]]:
    """(relevance, label, rank, whether the query has an answer) of every top-10 hit."""
    store, _ = open_store(til.root / Path(".memidx/index.sqlite"), write=False)
    found: list[tuple[float, int, int, bool]] = []
    for query in til.split(split):
        for hit in lexical_search(store, query.text, Filters(), 10).hits:
            assert hit.relevance is not None
            label = int(til.key(hit) in query.relevant)
            found.append((hit.relevance, label, hit.rank, bool(query.relevant)))
    return found


@pytest.fixture(scope="module")
def held_out_hits(til: JudgedSet) -> list[tuple[float, int, int, bool]]:
    """The test split's hits, searched once for both tests (the index is only read)."""
    return judged_hits(til, "test")


def test_relevance_beats_the_base_rate_on_held_out_queries(
    til: JudgedSet, held_out_hits: list[tuple[float, int, int, bool]]
) -> None:
    prior = mean(label for _, label, _, _ in judged_hits(til, "dev"))
    test = held_out_hits
    model = mean((p - label) ** 2 for p, label, _, _ in test)
    constant = mean((prior - label) ** 2 for _, label, _, _ in test)
    assert model < constant, (model, constant)


def test_best_hit_of_an_answered_query_looks_more_relevant(
    held_out_hits: list[tuple[float, int, int, bool]],
) -> None:
    firsts = [(p, answered) for p, _, rank, answered in held_out_hits if rank == 1]
    answered = mean(p for p, a in firsts if a)
    unanswered = mean(p for p, a in firsts if not a)
    assert answered > unanswered + 0.1, (answered, unanswered)
