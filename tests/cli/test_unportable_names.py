"""Names a clone on Windows cannot check out. `remember --dir aux` was refused as it should
be, but where `notes/aux/` was already there (made by hand before the check) the hint said to
rename what was typed and named no folder to move; and a note committed by hand as
`notes/aux/x.md` or `notes/a?b.md` passed the pre-commit checks, which `remember` would refuse.
Both say now which name and what to do, one line each, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_remember_redacted import PLAIN
from tests.helpers import NotesRepo

MOVE = "rename it with letters, digits, - and _ (`git mv`), then commit"


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    repo = NotesRepo(tmp_path / "memory")
    repo.git("config", "user.name", "memidx tests")
    repo.git("config", "user.email", "tests@memidx.invalid")
    repo.note("wsl.md", "WSL memory grows", "The vmmem process grows until .wslconfig caps it.")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    return repo


def test_remember_into_an_unportable_folder_already_there_names_it(repo: NotesRepo) -> None:
    repo.note("aux/printer.md", "Printer jams", "The printer jams when its tray is full.")
    head = repo.commit("a folder made by hand")

    done = repo.memidx_process("remember", "--title", "Linker memory", "--dir", "aux", stdin=PLAIN)

    assert done.code == 2, done.err
    assert done.err == (
        "memidx: usage error: --dir 'aux': the folder 'aux' is a Windows device name, so a"
        " clone on Windows cannot check out notes/aux/, which is there already (move its notes"
        " to a folder every system can check out (`git mv notes/aux notes/<new name>`) and"
        " remember into that; nothing was written)\n"
    )
    assert repo.git("rev-parse", "HEAD").strip() == head
    assert sorted(p.name for p in (repo.root / "notes" / "aux").iterdir()) == ["printer.md"]


@pytest.mark.parametrize(
    ("ref", "why"),
    [
        ("notes/aux/printer.md", "the folder 'aux' is a Windows device name"),
        ("notes/a?b.md", "the file name 'a?b.md' holds '?', which Windows refuses in a name"),
        ("notes/NUL.md", "the file name 'NUL.md' is a Windows device name"),
        ("notes/x./y.md", "the folder 'x.' ends in a dot or a space, which Windows drops"),
    ],
)
def test_the_pre_commit_check_refuses_a_staged_note_windows_cannot_check_out(
    repo: NotesRepo, ref: str, why: str
) -> None:
    repo.write(ref, "---\ntitle: Printer jams\n---\n\nThe printer jams when its tray is full.\n")
    repo.git("add", "-A")

    check = repo.memidx("check", "drift", ref)  # what pre-commit runs
    every = repo.memidx("check", "all", ref)

    line = f"{ref}:1: {why}, so a clone on Windows cannot check it out; {MOVE}\n"
    assert check.code == 1 and check.out.startswith(line), check.out + check.err
    assert every.code == 1 and line in every.out, every.out + every.err


def test_the_pre_commit_check_passes_a_portable_note(repo: NotesRepo) -> None:
    ref = repo.note("windows/auxiliary.md", "Printer jams", "The printer jams when full.")
    repo.git("add", "-A")

    check = repo.memidx("check", "drift", ref)

    assert "Windows" not in check.out, check.out


@pytest.mark.parametrize(
    ("ref", "line"),
    [
        ("notes/aux/img.png", f"the folder 'aux' is a Windows device name, so a clone on Windows"
         f" cannot check it out; {MOVE}"),
        ("notes/a?b.txt", f"the file name 'a?b.txt' holds '?', which Windows refuses in a name,"
         f" so a clone on Windows cannot check it out; {MOVE}"),
        ("notes/WSL.md/img.png", "notes/wsl.md is in the commit too, which macOS and Windows"
         " take for the same name (case is ignored there); rename one of them (`git mv`) or"
         " merge the two, then commit"),
    ],
)  # fmt: skip
def test_the_pre_commit_check_reads_every_staged_name_under_notes(
    repo: NotesRepo, ref: str, line: str
) -> None:
    """Only notes (`*.md`) were read: `notes/aux/img.png` passed, and git for Windows then
    fails to check out the whole clone; a file of any other name is checked out there too."""
    repo.write(ref, "not a note\n")
    repo.git("add", "-A")

    check = repo.memidx("check", "drift", ref)  # what pre-commit runs
    every = repo.memidx("check", "all", ref)

    assert check.code == 1 and f"{ref}:1: {line}\n" in check.out, check.out + check.err
    assert every.code == 1 and f"{ref}:1: {line}\n" in every.out, every.out + every.err


def test_a_deleted_or_unstaged_file_under_notes_is_not_refused(repo: NotesRepo) -> None:
    repo.write("notes/aux/img.png", "not a note\n")
    repo.commit("made by hand before the check")
    repo.git("rm", "-q", "notes/aux/img.png")
    repo.write("notes/lpt1.txt", "left untracked\n")

    check = repo.memidx("check", "drift", "notes/aux/img.png", "notes/lpt1.txt")

    assert "Windows" not in check.out, check.out + check.err
