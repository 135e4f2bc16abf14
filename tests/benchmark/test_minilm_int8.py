"""The bench candidate of the packaged MiniLM on int8 kernels: a graph that is not the pinned
rewrite is refused before anything loads, and its vectors are pooled as the packaged model's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.benchmark import candidate_model
from tests.benchmark.embedder_candidates import EMBEDDERS, CandidateMissing
from tests.benchmark.minilm_int8 import INT8_DIR, MinilmInt8Embedder, mean_pooled


def test_the_ranking_bench_knows_the_candidate_by_its_slug() -> None:
    assert "minilm-int8-kernels" in EMBEDDERS


def test_a_graph_that_is_not_the_pinned_rewrite_is_refused_unloaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "model.onnx").write_bytes(b"another graph")
    monkeypatch.setenv(INT8_DIR, str(tmp_path))

    def never(name: str) -> None:
        raise AssertionError(f"{name} loaded before the graph was checked")

    monkeypatch.setattr(candidate_model, "load", never)

    with pytest.raises(CandidateMissing, match="not the pinned rewrite"):
        MinilmInt8Embedder()


def test_without_its_folder_the_candidate_says_which_variable_to_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(INT8_DIR, raising=False)

    with pytest.raises(CandidateMissing, match=INT8_DIR):
        MinilmInt8Embedder()


def test_vectors_are_the_mean_of_the_unmasked_token_states_normalised() -> None:
    hidden = np.array([[[3.0, 0.0], [1.0, 4.0], [100.0, 0.0]]], np.float32)
    mask = np.array([[1, 1, 0]], np.int64)

    vector = mean_pooled(hidden, mask)[0]

    assert np.allclose(vector, np.array([2.0, 2.0]) / np.sqrt(8.0))
