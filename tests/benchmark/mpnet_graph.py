"""all-mpnet-base-v2's safetensors to ONNX without PyTorch (issue 17, bench only): the MPNet
encoder written node by node with the `onnx` package's helpers, weights read with numpy.

    python -m tests.benchmark.mpnet_graph --source all-mpnet-base-v2 --out mpnet-np.onnx

Same inputs, output and node names as tests.benchmark.mpnet_onnx's export (so its int8 recipe
applies): input_ids and attention_mask (int64, batch x tokens) -> sentence_embedding (the mean
of the last hidden states over the mask, L2-normalised). MPNet as Hugging Face's modeling_mpnet
runs it: word plus absolute position embeddings (positions count the non-padding tokens, from
2), LayerNorm; one relative position bias (32 buckets, up to 128 apart, 12 heads) shared by 12
post-norm layers of 12-head attention and an erf-GELU feed-forward. Needs `onnx` and numpy.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

HEADS, WIDTH, LAYERS = 12, 768, 12
BUCKETS, MAX_DISTANCE = 32, 128
PAD = 1  # <pad>: positions start after it, as in fairseq and RoBERTa
EPS = 1e-5
OPSET = 17
DTYPES = {"F32": np.float32, "I64": np.int64}


def read_safetensors(path: Path) -> dict[str, NDArray[Any]]:
    """Every tensor of a safetensors file (an 8-byte header size, a JSON header, raw data)."""
    data = path.read_bytes()
    (size,) = struct.unpack("<Q", data[:8])
    header: dict[str, Any] = json.loads(data[8 : 8 + size])
    tensors: dict[str, NDArray[Any]] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        start, end = (8 + size + int(o) for o in spec["data_offsets"])
        array = np.frombuffer(data[start:end], dtype=DTYPES[spec["dtype"]])
        tensors[name] = array.reshape([int(d) for d in spec["shape"]])
    return tensors


def relative_buckets(length: int) -> NDArray[np.int64]:
    """MPNet's bucket of each (query, key) pair: exact under 8 apart, logarithmic up to 128,
    the sign in the upper half (modeling_mpnet.relative_position_bucket)."""
    position = np.arange(length)
    relative = position[None, :] - position[:, None]
    half = BUCKETS // 2
    n = -relative
    bucket = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    exact = half // 2
    # in float32, as torch computes it (float64 gives the same table up to 514 tokens)
    ratio = np.maximum(n, 1).astype(np.float32) / np.float32(exact)
    scaled = np.log(ratio) / np.float32(math.log(MAX_DISTANCE / exact)) * np.float32(half - exact)
    large = np.minimum(exact + scaled.astype(np.int64), half - 1)
    return bucket + np.where(n < exact, n, large)


class Graph:
    """Nodes and initializers, named as the torch export names them where it matters."""

    def __init__(self, onnx: Any, weights: dict[str, NDArray[Any]]) -> None:
        self.onnx = onnx
        self.weights = weights
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self.count = 0

    def const(self, name: str, value: NDArray[Any]) -> str:
        self.initializers.append(self.onnx.numpy_helper.from_array(value, name))
        return name

    def op(
        self, kind: str, inputs: Sequence[str], name: str = "", output: str = "", **attrs: Any
    ) -> str:
        self.count += 1
        name = name or f"/{kind}_{self.count}"
        output = output or f"{name}_output_0"
        self.nodes.append(self.onnx.helper.make_node(kind, list(inputs), [output], name, **attrs))
        return output

    def linear(self, x: str, prefix: str, node: str) -> str:
        """x @ W.T + b, the MatMul named `node` (the int8 recipe excludes some by name)."""
        weight = self.const(
            f"{prefix}.weight.T", np.ascontiguousarray(self.weights[f"{prefix}.weight"].T)
        )
        bias = self.const(f"{prefix}.bias", self.weights[f"{prefix}.bias"])
        return self.op("Add", [self.op("MatMul", [x, weight], node), bias])

    def layer_norm(self, x: str, prefix: str) -> str:
        scale = self.const(f"{prefix}.weight", self.weights[f"{prefix}.weight"])
        bias = self.const(f"{prefix}.bias", self.weights[f"{prefix}.bias"])
        return self.op("LayerNormalization", [x, scale, bias], axis=-1, epsilon=EPS)


def _i64(*values: int) -> NDArray[np.int64]:
    return np.asarray(values, dtype=np.int64)


def _f32(value: float) -> NDArray[np.float32]:
    return np.asarray(value, dtype=np.float32)


def embeddings(g: Graph) -> str:
    pad = g.const("pad_id", _i64(PAD))
    real = g.op("Cast", [g.op("Not", [g.op("Equal", ["input_ids", pad])])], to=7)
    counted = g.op("CumSum", [real, g.const("axis_1", _i64(1))])
    positions = g.op("Add", [g.op("Mul", [counted, real]), pad])
    words = g.const("word_embeddings", g.weights["embeddings.word_embeddings.weight"])
    places = g.const("position_embeddings", g.weights["embeddings.position_embeddings.weight"])
    summed = g.op(
        "Add", [g.op("Gather", [words, "input_ids"]), g.op("Gather", [places, positions])]
    )
    return g.layer_norm(summed, "embeddings.LayerNorm")


def attention_bias(g: Graph) -> str:
    """The relative position bias plus the padding mask: batch x heads x tokens x tokens."""
    length = len(g.weights["embeddings.position_ids"][0])
    table = g.const("relative_buckets", relative_buckets(length))
    tokens = g.op("Gather", [g.op("Shape", ["input_ids"]), g.const("one", _i64(1))])
    square = g.op("Concat", [tokens, tokens], axis=0)
    buckets = g.op("Slice", [table, g.const("zeros2", _i64(0, 0)), square])
    bias = g.const("relative_attention_bias", g.weights["encoder.relative_attention_bias.weight"])
    per_head = g.op("Transpose", [g.op("Gather", [bias, buckets])], perm=[2, 0, 1])
    position = g.op("Unsqueeze", [per_head, g.const("axis_0", _i64(0))])
    mask = g.op("Cast", ["attention_mask"], to=1)
    hidden = g.op(
        "Mul",
        [
            g.op("Sub", [g.const("one_f", _f32(1.0)), mask]),
            g.const("min_f", _f32(float(np.finfo(np.float32).min))),
        ],
    )
    padding = g.op("Unsqueeze", [hidden, g.const("axes_1_2", _i64(1, 2))])
    return g.op("Add", [position, padding])


def layer(g: Graph, x: str, bias: str, i: int) -> str:
    prefix, node = f"encoder.layer.{i}", f"/model/encoder/layer.{i}"
    split = g.const("split_heads", _i64(0, 0, HEADS, WIDTH // HEADS))

    def heads(name: str, perm: list[int]) -> str:
        projected = g.linear(
            x, f"{prefix}.attention.attn.{name}", f"{node}/attention/attn/{name}/MatMul"
        )
        return g.op("Transpose", [g.op("Reshape", [projected, split])], perm=perm)

    q, k, v = heads("q", [0, 2, 1, 3]), heads("k", [0, 2, 3, 1]), heads("v", [0, 2, 1, 3])
    scale = g.const("head_scale", _f32(1.0 / math.sqrt(WIDTH // HEADS)))
    scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), scale]), bias])
    context = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
    merged = g.op(
        "Reshape",
        [
            g.op("Transpose", [context], perm=[0, 2, 1, 3]),
            g.const("merge_heads", _i64(0, 0, WIDTH)),
        ],
    )
    attended = g.linear(merged, f"{prefix}.attention.attn.o", f"{node}/attention/attn/o/MatMul")
    a = g.layer_norm(g.op("Add", [attended, x]), f"{prefix}.attention.LayerNorm")
    h = g.linear(a, f"{prefix}.intermediate.dense", f"{node}/intermediate/dense/MatMul")
    erf = g.op("Erf", [g.op("Div", [h, g.const("sqrt2", _f32(math.sqrt(2.0)))])])
    gelu = g.op(
        "Mul",
        [
            g.op("Mul", [h, g.const("half", _f32(0.5))]),
            g.op("Add", [erf, g.const("one_f", _f32(1.0))]),
        ],
    )
    out = g.linear(gelu, f"{prefix}.output.dense", f"{node}/output/dense/MatMul")
    return g.layer_norm(g.op("Add", [out, a]), f"{prefix}.output.LayerNorm")


def sentence(g: Graph, x: str) -> str:
    mask = g.op("Unsqueeze", [g.op("Cast", ["attention_mask"], to=1), g.const("axis_2", _i64(2))])
    axis = g.const("axis_1", _i64(1))
    summed = g.op("ReduceSum", [g.op("Mul", [x, mask]), axis], keepdims=0)
    count = g.op("Max", [g.op("ReduceSum", [mask, axis], keepdims=0), g.const("tiny", _f32(1e-9))])
    pooled = g.op("Div", [summed, count])
    norm = g.op("Sqrt", [g.op("ReduceSum", [g.op("Mul", [pooled, pooled]), axis], keepdims=1)])
    unit = g.op("Max", [norm, g.const("eps12", _f32(1e-12))])
    return g.op("Div", [pooled, unit], output="sentence_embedding")


def build(weights: dict[str, NDArray[Any]]) -> Any:
    """The ONNX model (opset 17) of all-mpnet-base-v2 with mean pooling and normalisation."""
    onnx: Any = importlib.import_module("onnx")
    g = Graph(onnx, weights)
    x = embeddings(g)
    bias = attention_bias(g)
    for i in range(LAYERS):
        x = layer(g, x, bias, i)
    sentence(g, x)
    unique = {t.name: t for t in g.initializers}
    tensor: Any = onnx.TensorProto
    graph = onnx.helper.make_graph(
        g.nodes,
        "all-mpnet-base-v2",
        [
            onnx.helper.make_tensor_value_info(n, tensor.INT64, ["batch", "seq"])
            for n in ("input_ids", "attention_mask")
        ],
        [onnx.helper.make_tensor_value_info("sentence_embedding", tensor.FLOAT, ["batch", WIDTH])],
        list(unique.values()),
    )
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="all-mpnet-base-v2 to ONNX with numpy and onnx")
    parser.add_argument("--source", type=Path, required=True, help="the model's folder")
    parser.add_argument("--out", type=Path, required=True, help="the ONNX file to write")
    args = parser.parse_args(argv)
    onnx: Any = importlib.import_module("onnx")
    onnx.save(build(read_safetensors(args.source / "model.safetensors")), str(args.out))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
