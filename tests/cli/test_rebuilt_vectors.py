"""A deleted index is rebuilt with its vectors: the git hook that rebuilds it starts the
background embed (it wrote every chunk in the fill, then found nothing to write, and started
none), and `ingest` or a rebuilding `sync`, which start none, say which chunks lack a vector
and what embeds them."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

from tests.cli.test_hook_path import wait_for_vectors
from tests.helpers import NotesRepo

NOTES = {
    "deploy.md": ("Blue green deploys", "Switch the router once the green pool is healthy."),
    "cache.md": ("Build cache", "The docker layer cache is invalidated by a copied lockfile."),
    "wsl.md": ("WSL memory", "vmmem grows until .wslconfig caps it."),
}


def embedded_memory(tmp_path: Path, models_dir: Path) -> NotesRepo:
    """A memory whose every chunk has its vector, embedded by hand."""
    repo = NotesRepo(tmp_path / "memory")
    for name, (title, body) in NOTES.items():
        repo.note(name, title, body)
    repo.commit("notes")
    assert repo.memidx_process("ingest", MEMIDX_MODELS_DIR=str(models_dir)).code == 0
    embedded = repo.memidx_process("embed", MEMIDX_MODELS_DIR=str(models_dir))
    assert embedded.code == 0, embedded.err
    return repo


def vector_rows(repo: NotesRepo) -> list[tuple[object, ...]]:
    """Every (text hash, model, vector) the index holds."""
    path = repo.root / ".memidx" / "index.sqlite"
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return conn.execute("SELECT text_hash, model, vector FROM vectors ORDER BY 1, 2").fetchall()


def test_a_hook_that_rebuilds_a_deleted_index_embeds_it_again(
    tmp_path: Path, models_dir: Path
) -> None:
    repo = embedded_memory(tmp_path, models_dir)
    before = vector_rows(repo)
    shutil.rmtree(repo.root / ".memidx")

    hook = repo.memidx_process("hook", "post-commit", MEMIDX_MODELS_DIR=str(models_dir))

    assert hook.code == 0, hook.err
    assert "vectors not updated" not in hook.out
    wait_for_vectors(repo, models_dir)  # never, before: 3 chunks, 0 vectors, no embed started
    assert vector_rows(repo) == before  # the same vectors a fresh embed gives


def test_ingest_of_a_deleted_index_says_what_embeds_its_chunks(
    tmp_path: Path, models_dir: Path
) -> None:
    repo = embedded_memory(tmp_path, models_dir)
    kept = repo.memidx_process("ingest", MEMIDX_MODELS_DIR=str(models_dir))
    assert kept.code == 0
    assert "vector" not in kept.err  # an index that keeps its vectors: nothing to say
    shutil.rmtree(repo.root / ".memidx")

    rebuilt = repo.memidx_process("ingest", MEMIDX_MODELS_DIR=str(models_dir))

    assert rebuilt.code == 0, rebuilt.err
    assert rebuilt.err.count("\n") == 1, rebuilt.err
    assert "memidx: notice: 0 of 3 chunks have a vector of " in rebuilt.err
    assert "the other 3 by words alone until `memidx embed`" in rebuilt.err
    status = repo.memidx_process("status", "--json", MEMIDX_MODELS_DIR=str(models_dir)).json()
    assert status["vectors"]["with_vectors"] == 0  # ingest starts no embed: it says so instead


def test_a_sync_that_rebuilds_a_deleted_index_says_what_embeds_its_chunks(
    tmp_path: Path, models_dir: Path
) -> None:
    repo = embedded_memory(tmp_path, models_dir)
    shutil.rmtree(repo.root / ".memidx")

    rebuilt = repo.memidx_process("sync", MEMIDX_MODELS_DIR=str(models_dir))
    again = repo.memidx_process("sync", MEMIDX_MODELS_DIR=str(models_dir))

    assert rebuilt.code == 0, rebuilt.err
    assert "0 of 3 chunks have a vector of " in rebuilt.err
    assert again.code == 0
    assert again.err == ""  # a sync that rebuilt nothing says nothing of vectors


def test_without_the_model_ingest_says_nothing_of_vectors(tmp_path: Path) -> None:
    repo = NotesRepo(tmp_path / "memory")
    repo.note("wsl.md", "WSL memory", "vmmem grows until .wslconfig caps it.")
    repo.commit("notes")

    done = repo.memidx_process("ingest")  # no model installed in this throwaway HOME

    assert done.code == 0
    assert done.err == ""
