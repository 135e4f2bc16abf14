"""`.memidx/` ignores itself whoever makes it: a background embed, a lock or a trace that brings
it back after `rm -rf .memidx` (or makes it beside an index kept elsewhere) writes its
.gitignore first, so `git add -A` in a repository whose .gitignore does not name it never
commits memidx's state."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.githooks.shims import shim
from memidx.index.failures import record_failure
from memidx.index.store import open_store
from memidx.mcp.serve import start_logging
from memidx.portable import file_lock
from memidx.state_folder import IGNORE_ALL, ensure_folder
from tests.helpers import NotesRepo

HOOK_SCRIPT = Path(__file__).resolve().parents[2] / "hooks" / "memidx-hook"


def _untracked(repo: NotesRepo) -> list[str]:
    return repo.git("status", "--porcelain", "--untracked-files=all").splitlines()


def test_a_background_embed_that_makes_the_state_folder_leaves_it_ignored(
    repo: NotesRepo, tmp_path: Path
) -> None:
    """The index kept outside .memidx/ (MEMIDX_INDEX) and .memidx/ deleted: the background
    embed a hook starts made .memidx/ for its lock and marks, and `git status` showed it."""
    repo.note("a.md", "Alpha", "alpha words")
    repo.commit()
    models = tmp_path / "no-models"  # no model: the embed fails fast, its trace in .memidx/
    models.mkdir()
    index = tmp_path / "elsewhere" / "index.sqlite"

    run = repo.memidx_process(
        "embed", "--background", MEMIDX_INDEX=str(index), MEMIDX_MODELS_DIR=str(models)
    )

    assert run.code in (0, 1), run.err
    assert (repo.root / ".memidx" / "embed.lock").is_file()  # it did make the folder
    assert (repo.root / ".memidx" / ".gitignore").read_bytes() == IGNORE_ALL
    assert _untracked(repo) == []


def test_a_lock_taken_after_rm_rf_memidx_brings_the_folder_back_ignored(repo: NotesRepo) -> None:
    state = repo.root / ".memidx"
    state.mkdir()
    shutil.rmtree(state)  # `rm -rf .memidx` while a background embed runs

    with file_lock(state / "embed.lock", wait=False) as taken:
        assert taken

    assert (state / ".gitignore").read_bytes() == IGNORE_ALL
    assert _untracked(repo) == []


def test_a_trace_written_after_rm_rf_memidx_brings_the_folder_back_ignored(
    repo: NotesRepo,
) -> None:
    state = repo.root / ".memidx"

    record_failure(state / "embed-error.log", "embed", "it failed")

    assert (state / "embed-error.log").is_file()
    assert (state / ".gitignore").read_bytes() == IGNORE_ALL
    assert _untracked(repo) == []


def test_a_folder_inside_a_deleted_state_folder_makes_it_ignored_first(tmp_path: Path) -> None:
    sessions = tmp_path / ".memidx" / "agents" / "claude" / "sessions"

    ensure_folder(sessions)

    assert sessions.is_dir()
    assert (tmp_path / ".memidx" / ".gitignore").read_bytes() == IGNORE_ALL
    assert not (tmp_path / ".memidx" / "agents" / ".gitignore").exists()


def test_a_state_folder_that_is_there_is_left_as_it_is(tmp_path: Path) -> None:
    """No .gitignore written into a folder memidx did not make now (its user's choice), nor
    one written over; other folders get none."""
    state = tmp_path / ".memidx"
    state.mkdir()
    (tmp_path / "other").mkdir()

    ensure_folder(state / "agents")
    ensure_folder(tmp_path / "other" / "deeper")

    assert not (state / ".gitignore").exists()
    assert not (tmp_path / "other" / ".gitignore").exists()
    assert not (tmp_path / "other" / "deeper" / ".gitignore").exists()


def test_without_parents_a_deleted_clone_is_not_made_again(tmp_path: Path) -> None:
    gone = tmp_path / "clone"

    with pytest.raises(FileNotFoundError):
        ensure_folder(gone / ".memidx", parents=False)
    assert not gone.exists()


def test_a_shim_without_its_hook_script_traces_into_a_state_folder_ignoring_itself(
    repo: NotesRepo, tmp_path: Path
) -> None:
    """An orphan branch's checkout after `rm -rf .memidx`: the shim's trace made .memidx/."""
    script = tmp_path / "post-checkout"
    script.write_text(shim("post-checkout"), encoding="utf-8")

    done = subprocess.run(
        ["/bin/sh", str(script)], cwd=repo.root, capture_output=True, text=True, check=False
    )

    assert done.returncode == 0, done.stderr
    assert (repo.root / ".memidx" / "hook-error.log").is_file()
    assert (repo.root / ".memidx" / ".gitignore").read_bytes() == IGNORE_ALL
    assert _untracked(repo) == []


def test_the_hook_script_that_cannot_start_memidx_traces_into_a_folder_ignoring_itself(
    repo: NotesRepo, tmp_path: Path
) -> None:
    (repo.root / "hooks").mkdir()
    shutil.copy(HOOK_SCRIPT, repo.root / "hooks" / "memidx-hook")
    repo.commit()

    done = subprocess.run(
        ["/bin/sh", "hooks/memidx-hook", "hook", "post-commit"],
        cwd=repo.root,
        env={**os.environ, "MEMIDX_PYTHON": str(tmp_path / "no-python")},
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    assert (repo.root / ".memidx" / "hook-error.log").is_file(), done.stderr
    assert (repo.root / ".memidx" / ".gitignore").read_bytes() == IGNORE_ALL
    assert _untracked(repo) == []


def test_an_index_opened_after_rm_rf_memidx_brings_the_folder_back_ignored(
    repo: NotesRepo,
) -> None:
    """open_store makes the index's folder (ingest's path), not only writable_index."""
    store, _ = open_store(repo.root / ".memidx" / "index.sqlite", write=True)
    store.conn.close()

    assert (repo.root / ".memidx" / ".gitignore").read_bytes() == IGNORE_ALL
    assert _untracked(repo) == []


def test_the_mcp_log_after_rm_rf_memidx_brings_the_folder_back_ignored(repo: NotesRepo) -> None:
    root = logging.getLogger()
    before = list(root.handlers)
    try:
        start_logging(load_config(repo.root), stderr=False)
    finally:
        for handler in [h for h in root.handlers if h not in before]:
            root.removeHandler(handler)
            handler.close()

    assert (repo.root / ".memidx" / "mcp.log").is_file()
    assert (repo.root / ".memidx" / ".gitignore").read_bytes() == IGNORE_ALL
    assert _untracked(repo) == []
