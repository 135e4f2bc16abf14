"""Pseudo-relevance feedback on the query vector, ranking candidates (`feedback 10/2`: the 10
nearest chunks, weight 2): the query's vector moves towards the mean of the chunks it is closest
to (Rocchio), then the search runs as usual. Judged sets such as NFCorpus have many relevant
documents per query, close to one another, so the first hits say where the others are. Bench
only: it wraps the query embedder, so memidx's own search is untouched. It ignores filters: on
LoCoMo, whose queries search one conversation's drawer, it draws on the other ones too."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memidx.embed.embedders import Vectors
from memidx.search.vector_index import VectorIndex
from tests.benchmark.stand_in import StandIn


def moved(query: Vectors, matrix: Vectors, chunks: int, weight: float) -> Vectors:
    """The unit vector of query + weight x the mean of its `chunks` nearest rows of `matrix`."""
    if chunks <= 0 or matrix.shape[0] == 0:
        return query
    take = min(chunks, matrix.shape[0])
    similarities = matrix @ query
    nearest = np.argpartition(-similarities, take - 1)[:take]
    shifted = query + weight * matrix[nearest].mean(axis=0)
    norm = float(np.linalg.norm(shifted))
    return (shifted / norm).astype(np.float32) if norm > 0 else query


@dataclass(slots=True)
class Feedback(StandIn):
    """An embedder whose query vectors are moved by feedback from `vectors`."""

    vectors: VectorIndex
    chunks: int
    weight: float

    def embed_query(self, text: str) -> Vectors:
        query = self.model.embed_query(text)
        return moved(query, self.vectors.matrix, self.chunks, self.weight)
