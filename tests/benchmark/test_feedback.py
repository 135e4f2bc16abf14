"""Query vector feedback (a ranking candidate): the query moves towards its nearest chunks."""

from __future__ import annotations

import numpy as np
import pytest

from memidx.embed.embedders import Vectors
from memidx.search.vector_index import VectorIndex
from tests.benchmark.feedback import Feedback, moved
from tests.benchmark.lab import QueryVectors
from tests.helpers import FakeEmbedder


def unit(*values: float) -> Vectors:
    vector = np.asarray(values, dtype=np.float32)
    return (vector / np.linalg.norm(vector)).astype(np.float32)


MATRIX = np.stack([unit(1.0, 1.0, 0.0), unit(1.0, 0.9, 0.0), unit(0.0, 0.0, 1.0)])


def test_the_query_moves_towards_its_nearest_chunks_only() -> None:
    query = unit(1.0, 0.0, 0.0)
    shifted = moved(query, MATRIX, 2, 1.0)
    assert float(np.linalg.norm(shifted)) == pytest.approx(1.0)
    assert shifted[1] > 0.3  # towards the two near chunks
    assert shifted[2] == pytest.approx(0.0)  # the far one had no say


@pytest.mark.parametrize(("chunks", "weight"), [(0, 1.0), (3, 0.0)])
def test_no_feedback_leaves_the_query_as_it_was(chunks: int, weight: float) -> None:
    query = unit(1.0, 0.0, 0.0)
    np.testing.assert_allclose(moved(query, MATRIX, chunks, weight), query)


def test_the_bench_embedders_are_the_model_but_for_their_queries() -> None:
    """QueryVectors and Feedback go by the model's name, width and fingerprint (the index's
    vectors are found by them) and embed passages as it does; QueryVectors embeds a query
    once however often it is asked, and Feedback moves it."""
    model = FakeEmbedder("test/stand-in", 3)
    queries = QueryVectors(model)
    vectors = VectorIndex(MATRIX, np.arange(3), np.arange(3), 0)
    feedback = Feedback(queries, vectors, 2, 1.0)

    for embedder in (queries, feedback):
        assert (embedder.name, embedder.dim, embedder.fingerprint) == ("test/stand-in", 3, "fake-3")
        np.testing.assert_allclose(embedder.embed(["flock"]), model.embed(["flock"]))
    np.testing.assert_allclose(queries.embed_query("locks"), queries.embed_query("locks"))
    assert list(queries.seen) == ["locks"]
    assert not np.allclose(feedback.embed_query("locks"), queries.embed_query("locks"))
