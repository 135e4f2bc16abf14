"""The real packaged model end to end: offline, through the CLI, on the golden notes."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from memidx.config import load_config
from memidx.errors import MemidxError
from memidx.index.store import Filters, VectorStore, open_store
from memidx.search.searcher import Searcher
from tests.benchmark.golden import copy_notes, queries, score
from tests.cli.network_watch import network_use, network_watch
from tests.helpers import NotesRepo, Run

if TYPE_CHECKING:
    from memidx.embed.embedders import FastembedEmbedder, OnnxEmbedder

PARAPHRASE = "how do I combine several small commits into one before merging"
SQUASH_NOTE = "notes/git/interactive-rebase-squash-fixup.md"


@pytest.fixture(scope="module")
def golden(tmp_path_factory: pytest.TempPathFactory, models_dir: Path) -> Iterator[NotesRepo]:
    """The golden notes, ingested and embedded with the real model by the real CLI."""
    repo = NotesRepo(tmp_path_factory.mktemp("golden-real") / "memory")
    copy_notes(repo.root)
    repo.write("pyproject.toml", f'[tool.memidx]\nmodels_dir = "{models_dir}"\n')
    repo.commit()
    assert repo.memidx_process("ingest").code == 0
    embedded = repo.memidx_process("embed")
    assert embedded.code == 0, embedded.err
    yield repo


def search(repo: NotesRepo, *args: str, **env: str) -> Run:
    return repo.memidx_process("search", "--json", *args, **env)


def test_golden_hybrid_recall_at_5_is_perfect_with_no_empty_result(golden: NotesRepo) -> None:
    # In-sample: the fusion depth, BM25 weights and first stopword list were chosen on these
    # queries (see tests/benchmark/test_golden.py); held-out figures are `make bench`'s.
    store, _ = open_store(golden.root / ".memidx" / "index.sqlite", write=False)
    searcher = Searcher(store, load_config(golden.root))
    result = score(
        queries(), lambda q: [h.ref for h in searcher.search(q, Filters(), 10, "hybrid").hits]
    )
    store.conn.close()
    assert result.empty == 0, result.misses
    assert result.recall_at_5 == 1.0, result.misses


def test_a_paraphrase_finds_its_note_by_meaning_where_bm25_does_not(golden: NotesRepo) -> None:
    bm25 = search(golden, "--mode", "bm25", "-k", "5", PARAPHRASE).json()
    assert SQUASH_NOTE not in [h["ref"] for h in bm25["hits"]]
    hybrid = search(golden, "-k", "5", PARAPHRASE)
    assert hybrid.code == 0, hybrid.err
    data = hybrid.json()
    assert data["engine"] == "hybrid" and data["warnings"] == []
    assert SQUASH_NOTE in [h["ref"] for h in data["hits"]]
    hit = next(h for h in data["hits"] if h["ref"] == SQUASH_NOTE)
    assert "vector" in hit["ranks"]


def test_a_hit_names_the_heading_of_its_chunk(golden: NotesRepo) -> None:
    data = search(golden, "-k", "3", "--mode", "vector", "reflog recover a lost commit").json()
    assert data["hits"][0]["ref"] == "notes/git/reflog-recover-lost-commits.md"
    assert data["hits"][0]["line"] >= 1


def test_the_query_path_opens_no_socket(golden: NotesRepo, tmp_path: Path) -> None:
    # the watch's positive control is tests/cli/test_network_watch.py
    env, log = network_watch(tmp_path)
    run = search(golden, "--mode", "hybrid", "WSL eats all my RAM", **env)
    assert run.code == 0, run.err
    assert run.json()["engine"] == "hybrid"
    assert network_use(log) == []


def test_embedding_connects_to_nothing(golden: NotesRepo, tmp_path: Path) -> None:
    env, log = network_watch(tmp_path)
    golden.note("offline.md", "Offline note", "embedded without a network")
    golden.commit("offline")
    assert golden.memidx_process("sync", **env).code == 0
    embed = golden.memidx_process("embed", **env)
    assert embed.code == 0, embed.err
    assert "embedded 1 chunk with" in embed.out
    # urllib3 creates (never connects) one socket at import to probe IPv6 support.
    assert "connect" not in network_use(log)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory, models_dir: Path) -> NotesRepo:
    """Two notes, ingested and embedded: built once (an ingest and an embed, whose model load
    is the dearest step); the tests that use it only read it."""
    repo = NotesRepo(tmp_path_factory.mktemp("small-real") / "small")
    repo.note("wsl.md", "WSL memory", "vmmem grows until it eats the RAM; cap it in .wslconfig")
    repo.note("git.md", "Detached HEAD", "checking out a tag detaches HEAD")
    repo.commit()
    assert repo.memidx_process("ingest").code == 0
    assert repo.memidx_process("embed", MEMIDX_MODELS_DIR=str(models_dir)).code == 0
    return repo


def test_an_embed_with_nothing_to_embed_loads_no_model(small: NotesRepo, models_dir: Path) -> None:
    # (not peak_rss_mb: Linux keeps a process's peak across exec, so a child of this test
    # process reports the test's own peak)
    again = small.memidx_process(
        "embed", "--json", MEMIDX_MODELS_DIR=str(models_dir), PYTHONPROFILEIMPORTTIME="1"
    )
    assert again.code == 0, again.err
    report = again.json()
    assert report["embedded"] == 0 and report["chunks"] == 2
    imported = [line.rsplit("|", 1)[-1].strip() for line in again.err.splitlines()]
    assert "memidx.embed.job" in imported  # the listing is there
    assert not [name for name in imported if name.startswith(("onnxruntime", "tokenizers"))]


def test_a_missing_model_is_a_clear_error_and_bm25_still_answers(
    small: NotesRepo, tmp_path: Path
) -> None:
    empty = tmp_path / "no-models"
    empty.mkdir()
    auto = search(small, "vmmem", MEMIDX_MODELS_DIR=str(empty))
    assert auto.code == 0
    data = auto.json()
    assert data["engine"] == "bm25" and data["hits"][0]["ref"] == "notes/wsl.md"
    assert any("not installed" in w and "make install" in w for w in data["warnings"])
    assert "memidx: warning: the embedding model is not installed" in auto.err
    forced = small.memidx_process(
        "search", "--mode", "hybrid", "vmmem", MEMIDX_MODELS_DIR=str(empty)
    )
    assert forced.code == 1
    assert forced.err.startswith("memidx: error: the embedding model is not installed")
    assert "Traceback" not in forced.err
    embed = small.memidx_process("embed", MEMIDX_MODELS_DIR=str(empty))
    assert embed.code == 1 and "make install" in embed.err


def test_a_model_file_with_a_wrong_hash_is_refused(
    small: NotesRepo, tmp_path: Path, models_dir: Path
) -> None:
    source = next(p for p in models_dir.iterdir() if p.is_dir())
    broken = tmp_path / "broken" / source.name
    broken.mkdir(parents=True)
    for item in source.iterdir():
        if item.name == "model.onnx":
            data = bytearray(item.read_bytes())
            data[len(data) // 2] ^= 0xFF
            (broken / item.name).write_bytes(bytes(data))
        elif item.name == "memidx-model.json":
            shutil.copy(item, broken / item.name)
        else:
            (broken / item.name).symlink_to(item)
    run = small.memidx_process(
        "search", "--mode", "hybrid", "vmmem", MEMIDX_MODELS_DIR=str(broken.parent)
    )
    assert run.code == 1
    assert "model.onnx does not match its sha256" in run.err
    bm25 = search(small, "vmmem", MEMIDX_MODELS_DIR=str(broken.parent))
    assert bm25.code == 0 and bm25.json()["hits"][0]["ref"] == "notes/wsl.md"


def hybrid_once_embedded(machine: NotesRepo, query: str) -> dict[str, Any]:
    """A search, once the background embed has given every chunk a vector (at most 120 s).
    The wait reads the index in this process: a search process each 0.5 s loaded the model
    each time, ~0.5 s of CPU a look, tens of looks on a loaded machine."""
    import sqlite3
    import time

    model = load_config(machine.root, env={}).model
    index = machine.root / ".memidx" / "index.sqlite"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            store, _ = open_store(index, write=False)
            try:
                vectors = VectorStore(store.conn)
                chunks = store.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
                if chunks and not vectors.missing(model):
                    break
            finally:
                store.conn.close()
        except (sqlite3.Error, MemidxError):
            pass  # the index is being written: look again
        time.sleep(0.2)
    found: dict[str, Any] = machine.memidx_process("search", "--json", query).json()
    assert found["engine"] == "hybrid" and found["warnings"] == [], found["warnings"]
    return found


def test_the_post_commit_hook_embeds_new_notes_in_the_background(
    tmp_path: Path, models_dir: Path
) -> None:
    import time

    from tests.machines import clone, hook_env, make_template

    env = hook_env(tmp_path / "pch", MEMIDX_HOOK_EMBED="1", MEMIDX_MODELS_DIR=str(models_dir))
    machine = clone(make_template(tmp_path, env), tmp_path / "a", env)
    machine.note("wsl.md", "WSL memory", "vmmem grows until it eats the RAM; cap it in .wslconfig")
    started = time.monotonic()
    machine.commit("a note, embedded by the hook", checks=False)  # the post-commit hook runs
    assert time.monotonic() - started < 10  # the commit does not wait for the model
    found = hybrid_once_embedded(machine, "RAM usage")
    assert found["hits"][0]["ref"] == "notes/wsl.md"
    assert not (machine.root / ".memidx" / "embed-error.log").exists()


def test_a_remembered_note_is_embedded_in_the_background(tmp_path: Path, models_dir: Path) -> None:
    """remember commits with plumbing (no hook runs), so it starts the embed itself."""

    from tests.machines import clone, hook_env, make_template

    env = hook_env(tmp_path / "pch", MEMIDX_HOOK_EMBED="1", MEMIDX_MODELS_DIR=str(models_dir))
    machine = clone(make_template(tmp_path, env), tmp_path / "a", env)
    body = "vmmem grows until it eats the RAM; cap it in .wslconfig\n"
    assert machine.memidx_process("remember", "--title", "WSL memory", stdin=body).code == 0
    found = hybrid_once_embedded(machine, "RAM usage")
    assert found["hits"][0]["ref"] == "notes/wsl-memory.md"


@pytest.fixture(scope="module")
def embedders(models_dir: Path) -> tuple[OnnxEmbedder, FastembedEmbedder]:
    """The packaged model's query embedder and fastembed's, each loaded once for the module
    (two loads of each model were most of two tests' CPU): they are only read."""
    from memidx.config import Config
    from memidx.embed.embedders import FastembedEmbedder, OnnxEmbedder

    config = Config(root=models_dir, models_path=models_dir)
    return OnnxEmbedder(config), FastembedEmbedder(config)


def test_the_query_path_gives_the_vectors_fastembed_gives(
    embedders: tuple[OnnxEmbedder, FastembedEmbedder], models_dir: Path
) -> None:
    import numpy as np

    from memidx.config import Config
    from memidx.embed.embedders import OnnxEmbedder

    config = Config(root=models_dir, models_path=models_dir)
    texts = ["WSL eats all my RAM", "git detached HEAD " * 60, "x", "ünïcödé café 日本語"]
    light, fast = embedders
    reference = fast.embed(texts)
    assert np.allclose(reference, np.vstack([light.embed_query(t) for t in texts]), atol=1e-5)
    # what `memidx embed` stores for the packaged model
    assert np.allclose(reference, OnnxEmbedder(config, bulk=True).embed(texts), atol=1e-5)


def test_hybrid_and_vector_modes_give_as_many_hits_as_asked(golden: NotesRepo) -> None:
    """One searcher, as `memidx search -k 40` builds it (its JSON count is len(hits)): a search
    process for each mode loaded the model twice, most of the test's time."""
    store, _ = open_store(golden.root / ".memidx" / "index.sqlite", write=False)
    try:
        searcher = Searcher(store, load_config(golden.root))
        for mode in ("hybrid", "vector"):
            assert len(searcher.search("git", Filters(), 40, mode).hits) == 40, mode
    finally:
        store.conn.close()


def test_a_query_with_a_lone_surrogate_is_searched_not_raised(
    embedders: tuple[OnnxEmbedder, FastembedEmbedder],
) -> None:
    # an agent's prompt in JSON may hold one ("\ud83d", half an emoji cut off): the model's
    # tokenizer refused it with a TypeError, which failed the recall hook
    import numpy as np

    for embedder in embedders:
        for query in ("file lock \ud83d", "\udcff", "\ud83d\ude80 file lock"):
            well_formed = query.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
            vector = embedder.embed_query(query)
            assert np.allclose(vector, embedder.embed_query(well_formed), atol=1e-6)
