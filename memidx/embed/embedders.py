"""Embedding models behind one protocol; fastembed and onnxruntime stay inside this module.

The packaged model runs its ONNX file through onnxruntime and tokenizers directly (fastembed's
own runtime dependencies), for notes as fastembed would run it and for queries with the graph
optimized at install time. Importing fastembed costs ~330 ms and loads requests, urllib3 (whose
import binds an AF_INET6 socket to probe ::1) and huggingface_hub, none of which a local model
needs. The two give the same vectors; tests/cli/test_real_model.py checks it on the real model.
Other models (`memidx model pull`) run through fastembed. Every import of that stack goes
through memidx.embed.runtime.load, which switches ONNX Runtime's telemetry off first.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from memidx.config import DEFAULT_MODEL, Config
from memidx.embed.installed import marker_name, model_identity, pulled_dir
from memidx.embed.model import load_packaged
from memidx.embed.runtime import load
from memidx.errors import ModelError
from memidx.remedies import model_install, reinstall
from memidx.text import well_formed

Vectors = NDArray[np.float32]
# One text per ONNX run: no padding work and the smallest memory peak. Measured on 1,000 TIL
# chunks, 2 cores: batch 1 = 41 chunks/s, 302 MB; batch 8 = 34/s, 456 MB; batch 16 = 31/s,
# 705 MB. Turning ONNX Runtime's CPU arena off made it slower and larger (18/s, 1,081 MB).
BATCH = 1


class Embedder(Protocol):
    """Turns text into unit vectors of one model."""

    name: str
    dim: int
    fingerprint: str

    def embed(self, texts: Sequence[str]) -> Vectors: ...

    def embed_query(self, text: str) -> Vectors: ...


def document_embedder(config: Config, threads: int | None = None) -> Embedder:
    """The embedder for corpus text: the packaged model as fastembed runs it, or fastembed."""
    if config.model == DEFAULT_MODEL:
        return OnnxEmbedder(config, bulk=True, threads=threads)
    return FastembedEmbedder(config, threads=threads)


def query_embedder(config: Config, *, warm: bool = False) -> Embedder:
    """The embedder for queries: the light ONNX path for the packaged model. `warm` is for a
    process that answers many (a server): it loads ~45 ms slower and embeds twice as fast.
    A process that embeds one query runs it on its own thread: no pool of ONNX Runtime
    threads to start, nor spinning while they wait (the same vectors)."""
    if config.model == DEFAULT_MODEL:
        return OnnxEmbedder(config, warm=warm, threads=None if warm else 1)
    return FastembedEmbedder(config, threads=None)


class FastembedEmbedder:
    """fastembed's TextEmbedding, loaded from local files only."""

    def __init__(self, config: Config, threads: int | None = None) -> None:
        try:
            text_embedding: Any = load("fastembed").TextEmbedding
        except ImportError as exc:  # pragma: no cover - an install problem
            hint = f"run `{reinstall('vectors')}`"  # pip's install: no Makefile
            raise ModelError(f"cannot import fastembed: {exc}", hint) from exc
        self.name = config.model
        options: dict[str, Any] = {"threads": threads}
        if config.model == DEFAULT_MODEL:
            packaged = load_packaged(config)
            _register_packaged(text_embedding)
            self.fingerprint = packaged.fingerprint
            options["specific_model_path"] = str(packaged.folder)
        else:
            identity = model_identity(config)
            if identity is None:
                raise ModelError(
                    f"the model {config.model} has not been downloaded",
                    f"run `memidx model pull {config.model}` where a network exists",
                )
            self.fingerprint = identity[1]
            options.update(cache_dir=str(pulled_dir(config)), local_files_only=True)
        try:
            self._model: Any = text_embedding(config.model, **options)
        except Exception as exc:
            raise ModelError(
                f"cannot load the model {config.model}: {exc}",
                f"run `{model_install()}` or `memidx model pull`",
            ) from exc
        self.dim = int(self._model.embedding_size)

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        rows = list(self._model.passage_embed(list(texts), batch_size=BATCH))
        return np.asarray(rows, dtype=np.float32)

    def embed_query(self, text: str) -> Vectors:
        query = well_formed(text)  # a prompt's lone surrogate is no TypeError
        return np.asarray(next(iter(self._model.query_embed(query))), dtype=np.float32)


_REGISTERED: list[bool] = []


def _register_packaged(text_embedding: Any) -> None:
    if _REGISTERED:
        return
    description: Any = load("fastembed.common.model_description")
    pooling: Any = description.PoolingType
    text_embedding.add_custom_model(
        model=DEFAULT_MODEL,
        pooling=pooling.MEAN,
        normalization=True,
        sources=description.ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),
        dim=384,
        model_file="model.onnx",
        description="all-MiniLM-L6-v2, int8 ONNX, assembled offline by memidx",
        license="apache-2.0",
    )
    _REGISTERED.append(True)


class OnnxEmbedder:
    """The packaged model through onnxruntime and tokenizers, as fastembed runs it. `bulk`
    (notes) loads model.onnx with fastembed's session options, on its first text: an embed
    with nothing to embed loads no model (~0.5 s of CPU and ~250 MB saved). Otherwise
    (queries, loaded at once so a server is warm) the graph optimized at install time, without
    optimizing again, and for one query (not `warm`) without prepacking the weights either.
    Measured on 2 cores: prepacking costs ~45 ms at load and halves each query after (8
    against 17 ms on one thread)."""

    def __init__(
        self,
        config: Config,
        *,
        bulk: bool = False,
        threads: int | None = None,
        warm: bool = False,
    ) -> None:
        packaged = load_packaged(config)  # a missing or damaged model is named here, at once
        self.name, self.dim, self.fingerprint = packaged.name, packaged.dim, packaged.fingerprint
        self._packaged, self._bulk, self._threads, self._warm = packaged, bulk, threads, warm
        self._session: Any = None
        if not bulk:
            self._load()

    def _load(self) -> Any:
        packaged, threads = self._packaged, self._threads
        try:
            ort: Any = load("onnxruntime")
            tokenizer: Any = load("tokenizers").Tokenizer
        except ImportError as exc:  # pragma: no cover - an install problem
            hint = f"run `{reinstall('vectors')}`"  # pip's install: no Makefile
            raise ModelError(f"cannot import onnxruntime: {exc}", hint) from exc
        folder = packaged.folder
        settings = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
        self._tokenizer: Any = tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=int(settings["model_max_length"]))
        self._tokenizer.no_padding()
        options: Any = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = options.inter_op_num_threads = threads
        model_file = packaged.onnx
        if self._bulk:
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        elif packaged.query_runtime == ort.__version__ and packaged.query_onnx.is_file():
            # Optimized at install time: skip graph optimization and (for a single short
            # query) weight prepacking, the slowest parts of a session start.
            model_file = packaged.query_onnx
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            if not self._warm:
                options.add_session_config_entry("session.disable_prepacking", "1")
        else:
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        try:
            self._session = ort.InferenceSession(
                str(model_file), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:
            hint = f"run `{model_install()}`"
            raise ModelError(f"cannot load {packaged.onnx}: {exc}", hint) from exc
        self._inputs = {i.name for i in self._session.get_inputs()}
        return self._session

    def embed(self, texts: Sequence[str]) -> Vectors:
        return (
            np.vstack([self.embed_query(t) for t in texts])
            if texts
            else np.zeros((0, self.dim), np.float32)
        )

    def embed_query(self, text: str) -> Vectors:
        session: Any = self._session if self._session is not None else self._load()
        encoding = self._tokenizer.encode(well_formed(text))  # a lone surrogate: TypeError
        ids = np.asarray([encoding.ids], dtype=np.int64)
        mask = np.asarray([encoding.attention_mask], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        output = session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
        summed = (output * mask[..., None]).sum(axis=1)
        pooled = summed / np.clip(mask.sum(axis=1, keepdims=True), 1e-9, None)
        norm = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norm, 1e-12)).astype(np.float32)[0]


def pull(config: Config, name: str) -> tuple[str, int, Path]:
    """Download a fastembed catalogue model once (needs a network); returns (name, dim, folder)."""
    text_embedding: Any = load("fastembed", online=True).TextEmbedding
    cache = config.models_dir / "fastembed"
    try:
        model: Any = text_embedding(name, cache_dir=str(cache))
    except Exception as exc:
        raise ModelError(
            f"cannot download {name}: {exc}",
            "check the name (fastembed's catalogue) and the network",
        ) from exc
    dim = int(model.embedding_size)
    marker = cache / marker_name(name)  # in the shared cache, beside what was downloaded
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps({"model": name, "dim": dim, "fingerprint": _weights_hash(model)}))
    return name, dim, cache


def _weights_hash(model: Any) -> str:
    """The sha256 of the downloaded ONNX file: pulling a new build of a model changes it, so
    its old vectors are dropped rather than mixed with new ones."""
    from memidx.embed.installed import sha256_file

    inner: Any = getattr(model, "model", None)
    folder = getattr(inner, "_model_dir", None)
    description: Any = getattr(inner, "model_description", None)
    model_file = getattr(description, "model_file", None)
    if folder is None or model_file is None:
        return f"{getattr(model, 'model_name', 'model')}@{model.embedding_size}"
    return sha256_file(Path(folder) / str(model_file))


def encode_vector(vector: Vectors) -> bytes:
    """Little-endian float32 bytes of one vector."""
    return np.ascontiguousarray(vector, dtype="<f4").tobytes()


def decode_matrix(blobs: Sequence[bytes], dim: int) -> Vectors:
    """One (n, dim) float32 matrix from n vector blobs."""
    if not blobs:
        return np.zeros((0, dim), dtype=np.float32)
    return (
        np.frombuffer(b"".join(blobs), dtype="<f4")
        .reshape(len(blobs), dim)
        .astype(np.float32, copy=False)
    )


def batches(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
