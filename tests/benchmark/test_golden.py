"""The golden recall gate: BM25 alone finds the right note for real developer questions.

The gate is in-sample: the BM25 field weights, the fusion depth and the first stopword list were
chosen on these very queries, so passing it shows no regression, not that search generalises.
Held-out figures: `make bench ONLY=beir,locomo,stopwords` (the stopword list is now pruned by
data not used to choose it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memidx.index.store import Filters, Store, open_store
from memidx.search.lexical import lexical_search
from tests.benchmark.golden import copy_notes, queries, score
from tests.helpers import NotesRepo


@pytest.fixture(scope="module")
def golden_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    repo = NotesRepo(tmp_path_factory.mktemp("golden") / "memory")
    copy_notes(repo.root)
    repo.commit()
    assert repo.memidx("ingest").code == 0
    store, _ = open_store(repo.root / ".memidx" / "index.sqlite", write=False)
    yield store
    store.conn.close()


def test_golden_set_is_big_enough() -> None:
    notes = list((Path(__file__).parent / "golden" / "notes").rglob("*.md"))
    assert len(notes) >= 60
    assert len(queries()) >= 30


def test_bm25_recall_at_5_is_at_least_085_with_no_empty_results(golden_store: Store) -> None:
    def search(text: str) -> list[str]:
        return [h.ref for h in lexical_search(golden_store, text, Filters(), 10).hits]

    result = score(queries(), search)
    assert result.empty == 0, result.misses
    assert result.recall_at_5 >= 0.85, result.misses
