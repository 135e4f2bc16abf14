"""`memidx embed` by hand on a memory never indexed reads every note and record first, as
`ingest` does: a note it skipped (too large, say) was said by ingest and sync, and by embed
not at all, and the next sync, finding nothing changed, did not say it either."""

from __future__ import annotations

from pathlib import Path

import pytest

import memidx.embed.job
from memidx.config import Config
from tests.helpers import FakeEmbedder, run_in_process


def _fake_embedder(_config: Config) -> FakeEmbedder:
    return FakeEmbedder()


def test_embed_on_a_memory_never_indexed_says_the_note_it_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "0")
    monkeypatch.setenv("MEMIDX_MAX_NOTE_BYTES", "200")
    monkeypatch.setattr(memidx.embed.job, "document_embedder", _fake_embedder)
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("# Small\n\nsmall words\n")
    (tmp_path / "notes" / "big.md").write_text("# Big\n\n" + "big words " * 100 + "\n")

    embedded = run_in_process(tmp_path, "embed")

    assert embedded.code == 0, embedded.err
    assert "memidx: warning: notes/big.md: skipped: too large (" in embedded.err
    assert embedded.out.startswith("embedded 1 chunk with ")
