"""The vector cache: keyed by chunk text and model, it survives ingest, rename and deletion."""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Sequence

import pytest

from memidx.config import Config, load_config
from memidx.embed.job import embed_missing
from memidx.index.store import Store, VectorStore, open_store
from memidx.index.sync import ingest, note_source, reconcile
from tests.helpers import FakeEmbedder, NotesRepo


@pytest.fixture
def embedded(repo: NotesRepo) -> Iterator[tuple[NotesRepo, Config, Store, FakeEmbedder]]:
    repo.note("a.md", "Alpha", "alpha words\n\n## Part two\n\nmore alpha")
    repo.note("b.md", "Beta", "beta words")
    repo.commit()
    config = load_config(repo.root)
    store, _ = open_store(config.index_path, write=True)
    ingest(config, store, note_source(config))
    fake = FakeEmbedder()
    first = embed_missing(store, fake)
    assert first.embedded == 3
    fake.calls.clear()
    yield repo, config, store, fake
    store.conn.close()


def test_unchanged_notes_are_not_embedded_again_after_ingest(
    embedded: tuple[NotesRepo, Config, Store, FakeEmbedder],
) -> None:
    _, config, store, fake = embedded
    ingest(config, store, note_source(config))
    assert embed_missing(store, fake).embedded == 0
    assert fake.calls == []


def test_a_renamed_note_keeps_its_vectors(
    embedded: tuple[NotesRepo, Config, Store, FakeEmbedder],
) -> None:
    repo, config, store, fake = embedded
    shutil.move(repo.root / "notes" / "a.md", repo.root / "notes" / "renamed.md")
    repo.commit("rename")
    report = reconcile(config, store, note_source(config), fix=True)
    assert report.renamed == 1
    assert embed_missing(store, fake).embedded == 0
    assert fake.calls == []
    _, covered, _ = VectorStore(store.conn).counts(fake.name)
    assert covered == 3


def test_a_note_deleted_and_restored_reuses_its_cached_vectors(
    embedded: tuple[NotesRepo, Config, Store, FakeEmbedder],
) -> None:
    repo, config, store, fake = embedded
    text = (repo.root / "notes" / "b.md").read_text()
    (repo.root / "notes" / "b.md").unlink()
    repo.commit("delete")
    reconcile(config, store, note_source(config), fix=True)
    repo.write("notes/b.md", text)
    repo.commit("restore")
    reconcile(config, store, note_source(config), fix=True)
    assert embed_missing(store, fake).embedded == 0


def test_only_the_changed_chunk_is_embedded_after_an_edit(
    embedded: tuple[NotesRepo, Config, Store, FakeEmbedder],
) -> None:
    repo, config, store, fake = embedded
    repo.note("a.md", "Alpha", "alpha words\n\n## Part two\n\nchanged second part")
    repo.commit("edit")
    reconcile(config, store, note_source(config), fix=True)
    assert embed_missing(store, fake).embedded == 1
    assert len(fake.calls) == 1 and "changed second part" in fake.calls[0][0]


def test_a_new_model_embeds_everything_once_and_never_mixes(
    embedded: tuple[NotesRepo, Config, Store, FakeEmbedder],
) -> None:
    _, _, store, fake = embedded
    other = FakeEmbedder(name="test/other", dim=32)
    assert embed_missing(store, other).embedded == 3
    vectors = VectorStore(store.conn)
    assert len(vectors.load(other.name).blobs) == 3
    assert {len(b) for b in vectors.load(other.name).blobs} == {32 * 4}
    assert {len(b) for b in vectors.load(fake.name).blobs} == {64 * 4}


def test_a_one_note_commit_reads_one_note(repo: NotesRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    from memidx.index.drift import SourceFile
    from memidx.index.sources import GitSource
    from memidx.index.sync import sync

    for i in range(200):
        repo.note(f"bulk/n{i}.md", f"Note {i}", f"body {i}")
    repo.commit()
    config = load_config(repo.root)
    store, _ = open_store(config.index_path, write=True)
    sync(config, store)
    repo.note("bulk/n7.md", "Note 7", "changed body")
    repo.commit("one note")
    read: list[str] = []
    original = GitSource.read

    def counting(
        self: GitSource, files: Sequence[SourceFile]
    ) -> Iterator[tuple[SourceFile, bytes | None]]:
        for file, data in original(self, files):  # from the working tree or from git
            read.append(file.ref)
            yield file, data

    monkeypatch.setattr(GitSource, "read", counting)
    report = sync(config, store)
    store.conn.close()
    assert (report.written, len(read)) == (1, 1)
