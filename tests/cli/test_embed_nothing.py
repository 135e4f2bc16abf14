"""`memidx embed` with nothing to embed says so: it said `embedded 0 chunks ... (0 chunks/s,
...)`, a rate of nothing that reads as a model that slow, and `"chunks_per_second": 0.0`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import NotesRepo


def test_embed_of_an_index_without_chunks_says_there_is_nothing_to_embed(
    repo: NotesRepo, models_dir: Path
) -> None:
    assert repo.memidx("ingest").code == 0
    run = repo.memidx_process("embed", MEMIDX_MODELS_DIR=str(models_dir))

    assert run.code == 0, run.err
    assert run.out.strip() == (
        "nothing to embed: the index holds no chunks yet (notes are chunked when they are indexed)"
    )
    assert "chunks/s" not in run.out + run.err


def test_embed_with_every_chunk_embedded_says_so_and_gives_no_rate(
    repo: NotesRepo, models_dir: Path
) -> None:
    repo.note("a.md", "Alpha", "alpha words about the file lock")
    repo.commit()
    env = {"MEMIDX_MODELS_DIR": str(models_dir)}
    first = repo.memidx_process("embed", "--json", **env)
    assert first.code == 0, first.err
    assert json.loads(first.out)["embedded"] > 0
    assert json.loads(first.out)["chunks_per_second"] > 0

    again = repo.memidx_process("embed", **env)
    listed = json.loads(repo.memidx_process("embed", "--json", **env).out)

    chunks = listed["chunks"]
    assert again.out.strip() == (
        f"nothing to embed: every chunk in the index ({chunks}) has a vector of {listed['model']}"
    )
    assert listed["embedded"] == 0 and chunks > 0
    assert listed["chunks_per_second"] is None
