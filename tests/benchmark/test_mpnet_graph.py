"""The torch-free MPNet conversion's pure parts: the relative position buckets and reading
safetensors. The whole graph was checked against the PyTorch export (README, issue 17)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

from tests.benchmark.mpnet_graph import read_safetensors, relative_buckets


# key position minus query position -> bucket, as transformers' MPNetEncoder computes them
@pytest.mark.parametrize(
    ("distance", "bucket"),
    [
        (0, 0), (1, 17), (-1, 1), (7, 23), (-7, 7), (8, 24), (-8, 8), (15, 25), (16, 26),
        (-16, 10), (31, 27), (32, 28), (-32, 12), (64, 30), (127, 31), (128, 31), (-128, 15),
        (200, 31), (-200, 15), (513, 31),
    ],
)  # fmt: skip
def test_relative_buckets_are_mpnets(distance: int, bucket: int) -> None:
    table = relative_buckets(514)
    query, key = (0, distance) if distance >= 0 else (-distance, 0)

    assert table[query, key] == bucket


def test_safetensors_are_read_by_name_shape_and_type(tmp_path: Path) -> None:
    weight = np.arange(6, dtype=np.float32).reshape(2, 3)
    ids = np.asarray([[0, 1, 2]], dtype=np.int64)
    header = {
        "__metadata__": {"format": "pt"},
        "w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
        "ids": {"dtype": "I64", "shape": [1, 3], "data_offsets": [24, 48]},
    }
    encoded = json.dumps(header).encode()
    path = tmp_path / "model.safetensors"
    path.write_bytes(struct.pack("<Q", len(encoded)) + encoded + weight.tobytes() + ids.tobytes())

    tensors = read_safetensors(path)

    assert set(tensors) == {"w", "ids"}
    np.testing.assert_array_equal(tensors["w"], weight)
    np.testing.assert_array_equal(tensors["ids"], ids)
    assert tensors["ids"].dtype == np.int64
