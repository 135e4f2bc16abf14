"""The embed job: one embedder per clone, and no chunk left without a vector when its hook's
embedder found another one at work."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memidx.config import load_config
from memidx.embed.job import embed_in_background, embed_index
from memidx.index.store import VectorStore, open_store
from memidx.index.sync import ingest, note_source
from tests.helpers import FakeEmbedder, NotesRepo, add_note


class CommitWhileEmbedding(FakeEmbedder):
    """Embeds as FakeEmbedder; on its first batch a note arrives and its hook starts a
    background embed, as a commit made during `memidx embed` does."""

    def __init__(self, arrive: Any) -> None:
        super().__init__()
        self.arrive = arrive

    def embed(self, texts: Sequence[str]) -> Any:
        arrive, self.arrive = self.arrive, None
        if arrive is not None:
            arrive()
        return super().embed(texts)


def test_a_note_committed_during_memidx_embed_gets_its_vectors(repo: NotesRepo) -> None:
    repo.note("a.md", "Alpha", "alpha words")
    repo.commit()
    config = load_config(repo.root)
    store, _ = open_store(config.index_path, write=True)
    ingest(config, store, note_source(config))

    def commit_and_hook() -> None:
        add_note(store, "notes/late.md", "# Late\nzebra words written while embedding\n")
        assert embed_in_background(config) == 0  # leaves: `memidx embed` holds the lock

    try:
        embed_index(config, store, embedder=CommitWhileEmbedding(commit_and_hook))
        chunks, covered, _ = VectorStore(store.conn).counts("test/fake")
    finally:
        store.conn.close()
    assert covered == chunks == 2
    assert not (config.state_dir / "embed.pending").exists()
