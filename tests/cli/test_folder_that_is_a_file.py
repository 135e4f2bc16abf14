"""`-C` and `memory use` given a file where a folder goes (the note a person meant to pipe
in, `-C "my body.md"`): the line says it is a file, not that no such folder exists."""

from __future__ import annotations

import pytest

from tests.helpers import NotesRepo


@pytest.mark.parametrize("argv", [["-C", "{file}", "status"], ["memory", "use", "{file}"]])
def test_a_file_named_as_the_memory_is_called_a_file(repo: NotesRepo, argv: list[str]) -> None:
    """It said `-C /tmp/my body.md: no such folder`, of a file that is there."""
    file = repo.root / "my body.md"
    file.write_text("a body of words\n")
    missing = repo.root / "nothing here"

    run = repo.memidx_process(*(one.format(file=file) for one in argv))
    none = repo.memidx_process(*(one.format(file=missing) for one in argv))

    assert run.code == 1 and none.code == 1, (run, none)
    assert f"{file}: a file, not a folder (give " in run.err, run.err
    assert run.err.count("\n") == 1 and "Traceback" not in run.err, run.err
    assert f"{missing}: no such folder (give " in none.err, none.err


def test_archive_transcript_of_a_folder_says_so(repo: NotesRepo) -> None:
    """`memidx archive-transcript <folder>` said `cannot read it as UTF-8 text ([Errno 21] Is a
    directory ...)`, as if the file's bytes were at fault. It names nothing to read: exit 1, as
    `-C <file>` (tests/cli/test_archive_transcript_fifo.py)."""
    folder = repo.root / "my transcripts"
    folder.mkdir()

    run = repo.memidx_process("archive-transcript", str(folder))

    assert run.code == 1, run.err
    assert (
        run.err == f"memidx: error: {folder}: a folder, not a file (give a transcript file or -)\n"
    )
