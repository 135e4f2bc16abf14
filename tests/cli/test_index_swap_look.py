"""memidx.git.index_swap: the copy of git's index brought to memidx's commit before HEAD's move.
`usable()` told git's index unchanged by its stat signature alone (inode, size, times): on a
file system whose clock ticks coarsely, a git that wrote the index twice in one tick, to the
same size, the first write's inode used again, looked like the index copied, and the copy
(without that git's change) replaced it. The index is now held by a hard link while copied
(its inode cannot be used again). And `prepare()` ran `git cat-file` per file to write before
`usable()` refused it for a file already at its path (a purge's, every time): it refuses first."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memidx.git import index_swap
from tests.helpers import NotesRepo


def _repo(tmp_path: Path) -> NotesRepo:
    repo = NotesRepo(tmp_path / "memory")
    repo.write("notes/a.md", "# A\n\nThe first note.\n")
    repo.commit("a")
    return repo


def test_an_index_written_again_with_the_same_stat_is_not_taken_for_the_copied_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repo(tmp_path)
    git_dir = repo.root / ".git"
    head = repo.git("rev-parse", "HEAD").strip()

    # a coarse clock: every write of the index in this test falls in one tick, to one size
    def coarse(git_dir: Path) -> index_swap.Signature:
        return (1, 1, 1, 1)

    monkeypatch.setattr(index_swap, "signature", coarse)
    prepared = index_swap.prepare(repo.root, git_dir, ["reset", "-q", head, "--", "."], head, [])
    assert prepared is not None
    repo.write("notes/b.md", "# B\n\nThe person's note, staged as memidx moves HEAD.\n")
    repo.git("add", "notes/b.md")  # git writes a new index, renamed over the old one

    assert not index_swap.usable(repo.root, git_dir, prepared)
    index_swap.discard(git_dir)
    assert not list(git_dir.glob("memidx-ready-index*"))


def test_a_copy_for_files_already_there_is_refused_before_any_git_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repo(tmp_path)
    git_dir = repo.root / ".git"
    head = repo.git("rev-parse", "HEAD").strip()
    shim, log = tmp_path / "bin", tmp_path / "ran"
    shim.mkdir()
    (shim / "git").write_text('#!/bin/sh\necho "$*" >> "$RAN"\nexec "$REAL_GIT" "$@"\n')
    (shim / "git").chmod(0o755)
    real = shutil.which("git")
    assert real is not None
    monkeypatch.setenv("RAN", str(log))
    monkeypatch.setenv("REAL_GIT", real)
    monkeypatch.setenv("PATH", f"{shim}:{Path(real).parent}:/usr/bin:/bin")
    prepared = index_swap.prepare(repo.root, git_dir, ["reset", "-q", head], head, ["notes/a.md"])

    assert prepared is None and not log.exists()  # no git run
    assert not (git_dir / index_swap.READY).exists()
