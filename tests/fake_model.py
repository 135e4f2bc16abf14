"""The deterministic fake embedder (tests.helpers.FakeEmbedder) in place of the packaged model
for every vector memidx makes in this process, documents' and queries' alike."""

from __future__ import annotations

import pytest

import memidx.embed.job
import memidx.search.searcher
from tests.helpers import FakeEmbedder


def use_fake_model(monkeypatch: pytest.MonkeyPatch) -> FakeEmbedder:
    """The fake embedder, named as the configured model; hooks embed nothing (`memidx embed`
    does, in process)."""
    fake = FakeEmbedder()

    def model(*_: object, **__: object) -> FakeEmbedder:
        return fake

    monkeypatch.setenv("MEMIDX_MODEL", fake.name)
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "0")
    monkeypatch.setattr(memidx.embed.job, "document_embedder", model)
    monkeypatch.setattr(memidx.search.searcher, "query_embedder", model)
    return fake
