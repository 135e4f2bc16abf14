"""A staged note whose path differs only in case from another the commit holds: `remember`
never writes one (`vmmem-2.md` beside `Vmmem.md`), and one committed by hand passed the
pre-commit checks, so a clone on macOS or Windows checked out one file for the two."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import NotesRepo

TEXT = "---\ntitle: Printer jams\n---\n\nThe printer jams when its tray is full.\n"
RENAME = "rename one of them (`git mv`) or merge the two, then commit"


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    repo = NotesRepo(tmp_path / "memory")
    repo.git("config", "user.name", "memidx tests")
    repo.git("config", "user.email", "tests@memidx.invalid")
    repo.write("notes/printer.md", TEXT)
    repo.write("notes/wsl/memory.md", TEXT.replace("Printer jams", "WSL memory"))
    repo.commit()
    assert repo.memidx("ingest").code == 0
    return repo


@pytest.mark.parametrize(
    ("ref", "twin"),
    [
        ("notes/Printer.md", "notes/printer.md"),
        ("notes/WSL/swap.md", "notes/wsl"),  # a folder macOS merges with wsl/
        ("notes/PRINTER.MD", "notes/printer.md"),
    ],
)
def test_the_pre_commit_check_refuses_a_case_twin(repo: NotesRepo, ref: str, twin: str) -> None:
    repo.write(ref, TEXT)
    repo.git("add", "-A")

    check = repo.memidx("check", "drift", ref)  # what pre-commit runs
    every = repo.memidx("check", "all", ref)

    line = (
        f"{ref}:1: {twin} is in the commit too, which macOS and Windows take for the same name"
        f" (case is ignored there); {RENAME}\n"
    )
    assert check.code == 1 and line in check.out, check.out + check.err
    assert every.code == 1 and line in every.out, every.out + every.err


def test_twins_staged_together_are_both_named(repo: NotesRepo) -> None:
    repo.write("notes/Jam.md", TEXT)
    repo.write("notes/jam.md", TEXT)
    repo.git("add", "-A")

    check = repo.memidx("check", "drift", "notes/Jam.md", "notes/jam.md")

    assert check.code == 1, check.out + check.err
    assert "notes/Jam.md:1: notes/jam.md is in the commit too" in check.out
    assert "notes/jam.md:1: notes/Jam.md is in the commit too" in check.out


def test_a_rename_in_case_and_a_deleted_twin_pass(repo: NotesRepo) -> None:
    repo.git("mv", "notes/printer.md", "notes/Printer.md")  # the old name leaves the commit
    repo.write("notes/wsl/Memory.md", TEXT)
    repo.git("rm", "-q", "notes/wsl/memory.md")

    check = repo.memidx("check", "drift", "notes/Printer.md", "notes/wsl/Memory.md")

    assert "case is ignored" not in check.out, check.out + check.err


@pytest.mark.parametrize(
    ("ref", "line"),
    [
        ("Notes/img.png", "Notes/img.png:1: notes is in the commit too"),
        ("NOTES/jam.md", "NOTES/jam.md:1: notes is in the commit too"),
        ("Notes", "Notes:1: notes is in the commit too"),  # a file: no folder beside it there
    ],
)
def test_a_top_level_twin_of_the_notes_folder_is_refused(
    repo: NotesRepo, ref: str, line: str
) -> None:
    """`Notes/` beside `notes/` is one folder on macOS and Windows: the check listed the notes
    folder by a pathspec that tells case, and read only files under `notes/`, so it passed."""
    repo.write(ref, TEXT)
    repo.git("add", "-A")

    check = repo.memidx("check", "drift", ref)
    every = repo.memidx("check", "all", ref)

    assert check.code == 1 and line in check.out, check.out + check.err
    assert every.code == 1 and line in every.out, every.out + every.err


def test_a_note_beside_a_notes_folder_of_other_case_is_refused(repo: NotesRepo) -> None:
    repo.write("Notes/old.md", TEXT)
    repo.commit()
    repo.write("notes/new.md", TEXT.replace("Printer jams", "New"))
    repo.git("add", "-A")

    check = repo.memidx("check", "drift", "notes/new.md")

    assert check.code == 1, check.out + check.err
    assert "notes/new.md:1: Notes is in the commit too" in check.out, check.out


def test_a_folder_only_its_case_makes_no_notes_folder_is_not_refused(tmp_path: Path) -> None:
    """No twin, nothing refused that passed before: `Notes/aux/img.png` is no file of the
    notes folder (`notes/`) when the commit holds no `notes/`."""
    repo = NotesRepo(tmp_path / "memory")
    repo.write("Notes/aux/img.png", TEXT)
    repo.write("Notes/a.md", TEXT)
    repo.git("add", "-A")

    check = repo.memidx("check", "drift", "Notes/aux/img.png", "Notes/a.md")

    assert "Windows" not in check.out and "case is ignored" not in check.out, check.out
