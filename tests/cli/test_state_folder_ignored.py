"""`.memidx/` ignores itself whoever makes it: a background embed, a lock or a trace that brings
it back after `rm -rf .memidx` (or makes it beside an index kept elsewhere) writes its
.gitignore first, so `git add -A` in a repository whose .gitignore does not name it never
commits memidx's state."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
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
# every write of a file fails (EFBIG) as on a full disk; making a folder or an empty file does not
FULL_DISK = "trap '' XFSZ; ulimit -f 0; exec \"$@\""


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


def _on_a_full_disk(argv: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/sh", "-c", FULL_DISK, "sh", *argv],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_a_state_folder_whose_gitignore_cannot_be_written_is_not_left(tmp_path: Path) -> None:
    """A full disk: the folder was left without its .gitignore, and once made it was never
    given one again (a lock taken next lay in it for `git add -A`)."""
    code = "import sys, pathlib; from memidx.state_folder import ensure_folder as e; "
    code += "e(pathlib.Path(sys.argv[1]))"
    state = tmp_path / ".memidx"

    done = _on_a_full_disk([sys.executable, "-c", code, str(state / "agents")], tmp_path)

    assert "File too large" in done.stderr, done.stderr
    assert not os.path.lexists(state)


@pytest.mark.parametrize("script", ["shim", "hook script"])
def test_a_trace_on_a_full_disk_leaves_no_empty_gitignore(
    repo: NotesRepo, tmp_path: Path, script: str
) -> None:
    """The shell's `>` made .memidx/.gitignore, empty, then failed to write it: an empty
    .gitignore ignores nothing and memidx never writes over it, so `git add -A` committed the
    index made there next."""
    if script == "shim":
        (path := tmp_path / "post-checkout").write_text(shim("post-checkout"), encoding="utf-8")
        argv = [str(path)]
    else:
        (repo.root / "hooks").mkdir()
        shutil.copy(HOOK_SCRIPT, repo.root / "hooks" / "memidx-hook")
        repo.commit()
        argv = ["hooks/memidx-hook", "hook", "post-commit"]
    state_home = tmp_path / "state"

    done = _on_a_full_disk(
        ["/bin/sh", *argv],
        repo.root,
        MEMIDX_PYTHON=str(tmp_path / "no-python"),
        XDG_STATE_HOME=str(state_home),
    )

    assert done.returncode == 0, done.stderr
    assert "memidx:" in done.stderr  # it still says what it could not do
    assert not os.path.lexists(repo.root / ".memidx")
    assert _untracked(repo) == []


def test_a_dangling_link_for_the_state_folder_is_refused_in_one_line(
    repo: NotesRepo, tmp_path: Path
) -> None:
    """mkdir said only `.memidx: File exists` (of a link whose target is missing): what stands
    there and what to do, and nothing made through the link."""
    repo.note("a.md", "Alpha", "alpha words")
    repo.commit()
    (repo.root / ".memidx").symlink_to(tmp_path / "gone")

    run = repo.memidx_process("ingest")

    assert run.code == 1
    assert run.err.count("\n") == 1 and "link to no folder" in run.err, run.err
    assert "move it away, or make the folder it links to" in run.err
    assert not os.path.lexists(tmp_path / "gone")
