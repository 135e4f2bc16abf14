"""A vector folder beside the index (`index.db-vectors`) that is a link out of .memidx/ is not
memidx's: a forget followed it and removed the files there (every `*.mxv` when the matrices
could not be written again, those of no model of the index when they could)
(memidx/index/matrix_header.py's matrix_files, memidx/embed/matrix.py's scrub_matrices)."""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import pytest

from memidx.embed import matrix
from memidx.index.matrix_header import matrix_files
from tests.cli.test_forget_matrix_files import embedded
from tests.helpers import NotesRepo


def linked_away(repo: NotesRepo, tmp_path: Path) -> tuple[Path, Path]:
    """The memory embedded, its vector folder moved out of .memidx/ with a person's own
    `mine.mxv` added, a link left in its place; returns the link and the person's file."""
    folder = embedded(repo)
    elsewhere = tmp_path / "elsewhere"
    folder.rename(elsewhere)
    folder.symlink_to(elsewhere, target_is_directory=True)
    mine = elsewhere / "mine.mxv"
    mine.write_bytes(b"a person's own file")
    return folder, mine


def test_a_linked_vector_folder_lists_no_matrix_file(repo: NotesRepo, tmp_path: Path) -> None:
    folder, _ = linked_away(repo, tmp_path)
    assert matrix_files(Path(str(folder).removesuffix("-vectors"))) == []


def test_a_forget_leaves_the_files_of_a_linked_vector_folder(
    repo: NotesRepo, tmp_path: Path
) -> None:
    _, mine = linked_away(repo, tmp_path)
    done = repo.memidx("forget", "notes/secret.md")
    assert done.code == 0, done.err
    assert mine.read_bytes() == b"a person's own file"


def test_a_forget_that_cannot_write_the_matrices_leaves_a_linked_folder_s_files(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, mine = linked_away(repo, tmp_path)

    def full(*_args: object, **_kwargs: object) -> NoReturn:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(matrix, "scrub_matrices", full)
    done = repo.memidx("forget", "notes/secret.md")

    assert done.code == 0, done.err
    assert mine.read_bytes() == b"a person's own file"
    assert folder.is_symlink()
