"""An embedder that stands in for the model in a bench searcher: the model's name, width and
fingerprint, its passages embedded as the model embeds them; only its queries differ."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from memidx.embed.embedders import Embedder, Vectors


@dataclass(slots=True)
class StandIn:
    """`model` but for embed_query, which a subclass gives."""

    model: Embedder
    name: str = field(init=False)
    dim: int = field(init=False)
    fingerprint: str = field(init=False)

    def __post_init__(self) -> None:
        self.name, self.dim, self.fingerprint = (
            self.model.name,
            self.model.dim,
            self.model.fingerprint,
        )

    def embed(self, texts: Sequence[str]) -> Vectors:
        return self.model.embed(texts)
