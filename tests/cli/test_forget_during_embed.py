"""A forget that lands while an embed runs: the embed read its list of chunks before the
forget dropped them (and the vectors of their text), and wrote the forgotten text's vectors
back after. An embed stores only the vectors of text a chunk holds when it writes."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from memidx.config import load_config
from memidx.embed.job import embed_index
from memidx.index.store import open_store
from memidx.index.sync import ingest, note_source
from tests.helpers import FakeEmbedder, NotesRepo

SECRET = "The zebra passphrase is purple-otter-42."


class ForgetWhileEmbedding(FakeEmbedder):
    """Embeds as FakeEmbedder; its first batch, read before, is held while `forget` runs."""

    def __init__(self, forget: Callable[[], object]) -> None:
        super().__init__()
        self.forget: Callable[[], object] | None = forget

    def embed(self, texts: Sequence[str]) -> Any:
        forget, self.forget = self.forget, None
        if forget is not None:
            forget()
        return super().embed(texts)


def orphans(repo: NotesRepo) -> list[str]:
    """The texts of the vectors no chunk holds (a rebuild has none)."""
    store, _ = open_store(load_config(repo.root).index_path, write=False)
    try:
        rows = store.conn.execute(
            "SELECT text_hash FROM vectors WHERE text_hash NOT IN (SELECT text_hash FROM chunks)"
        ).fetchall()
    finally:
        store.conn.close()
    return [str(row[0]) for row in rows]


def embed_while(repo: NotesRepo, *forget: str) -> None:
    """`memidx embed` into the index, with `memidx forget REF` run between its read of the
    chunks to embed and its write of their vectors."""
    config = load_config(repo.root)
    store, _ = open_store(config.index_path, write=True)
    try:

        def forget_now() -> None:
            done = repo.memidx("forget", *forget)
            assert done.code == 0, done.err

        embedded = embed_index(config, store, embedder=ForgetWhileEmbedding(forget_now))
    finally:
        store.conn.close()
    assert embedded.embedded > 0  # it held the forgotten text when it read


def test_a_note_forgotten_while_embedding_gets_no_vector_back(repo: NotesRepo) -> None:
    repo.note("secret.md", "Secret", SECRET)
    repo.note("keep.md", "Keep", "Caches evict by LRU.")
    repo.commit("notes")
    config = load_config(repo.root)
    store, _ = open_store(config.index_path, write=True)
    ingest(config, store, note_source(config))
    store.conn.close()

    embed_while(repo, "notes/secret.md")

    assert orphans(repo) == []  # was the forgotten note's chunk, written back after the drop


def test_a_turn_forgotten_while_embedding_gets_no_vector_back(repo: NotesRepo) -> None:
    repo.note("keep.md", "Keep", "Caches evict by LRU.")
    repo.commit("notes")
    assert repo.memidx("ingest").code == 0
    said = {"user": "what is the zebra passphrase", "assistant": SECRET, "session": "s1"}
    filed = repo.memidx_process("file-turn", stdin=json.dumps(said), MEMIDX_HOOK_EMBED="0")
    assert filed.code == 0, filed.err

    embed_while(repo, filed.out.strip())

    assert orphans(repo) == []
