"""`memidx check all --remedy COMMAND`: the remedy the drift check names (another repository's
hook names `pre-commit run memidx-sync --hook-stage post-commit`, for its lack of `make
reconcile`), wherever the option stands among the files pre-commit adds."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.errors import MemidxError
from memidx.githooks.hook import _failed  # pyright: ignore[reportPrivateUsage]
from tests.helpers import NotesRepo

REMEDY = "pre-commit run memidx-sync --hook-stage post-commit"
DRIFT_HEADER = "memidx index in step with HEAD, staged notes indexable: Failed\n"
ENGLISH = "The file lock is held by another process on Windows, so nobody can write any more."


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> NotesRepo:
    """An indexed memory with an English note staged."""
    monkeypatch.delenv("SKIP", raising=False)
    monkeypatch.delenv("MEMIDX_CHECK_NOTICES", raising=False)
    repo = NotesRepo(tmp_path / "memory")
    repo.note("wsl.md", "WSL memory", "vmmem grows until .wslconfig caps it")
    repo.commit("first")
    assert repo.memidx("ingest").code == 0
    repo.note("lock.md", "File lock", ENGLISH)
    repo.git("add", "-A")
    return repo


@pytest.mark.parametrize("where", ["before the files", "after the files"])
def test_drift_names_the_remedy_it_is_given(repo: NotesRepo, where: str) -> None:
    repo.commit("a commit no hook followed")  # the index is behind HEAD
    repo.note("third.md", "Third", ENGLISH)
    repo.git("add", "-A")
    options, files = ["--remedy", REMEDY], ["notes/third.md"]

    argv = [*options, *files] if where == "before the files" else [*files, *options]
    done = repo.memidx("check", "all", *argv)

    assert done.code == 1, done
    assert done.out.startswith(DRIFT_HEADER + "- hook id: memidx-drift\n"), done.out
    assert "memidx: the index has drifted from HEAD" in done.out
    assert done.out.endswith(f"; run `{REMEDY}`\n") and "make reconcile" not in done.out


def test_a_hook_failure_is_named_with_the_remedy_alone(repo: NotesRepo) -> None:
    """The failed hook's line named `make reconcile` inside the drift check's, which named the
    remedy after it: another repository has no Makefile."""
    _failed(repo.root, "post-commit", MemidxError("database is locked"))

    done = repo.memidx("check", "all", "--remedy", REMEDY, "notes/lock.md")

    assert done.code == 1, done
    assert "memidx: a git hook could not update the index (" in done.out
    assert "post-commit: could not update the index: database is locked" in done.out
    assert done.out.count(REMEDY) == 2 and "make reconcile" not in done.out, done.out


def test_without_remedy_a_hook_failure_names_make_reconcile(repo: NotesRepo) -> None:
    _failed(repo.root, "post-commit", MemidxError("database is locked"))

    done = repo.memidx("check", "all", "notes/lock.md")

    assert done.code == 1 and done.out.count("run `memidx reconcile --fix`") == 2, done.out
