"""The lines the next `memidx status` writes of a note's file a killed memidx left aside
(memidx.git.killed_edit): a note named with a line break was named as it is (`removed
notes/.line<newline>break.md.memidx-<pid>, ... so notes/line<newline>break.md stays
forgotten`), its one line broken in two, where every other line of memidx shows such a name
escaped (memidx.text.display: `notes/line\\nbreak.md`)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.killed_forget import forget_killed_at_its_aside
from tests.helpers import NotesRepo, started_memory

ODD = "notes/line\nbreak.md"
SHOWN = "notes/line\\nbreak.md"


def _killed_forget(tmp_path: Path) -> NotesRepo:
    """A forget of ODD killed with the note's file aside, judged unchanged."""
    repo = started_memory(tmp_path)
    repo.write(ODD, "# Line break\n\nA note named with a line break.\n")
    repo.commit("odd")
    forget_killed_at_its_aside(repo, ODD, tmp_path / "site")
    assert len(list((repo.root / "notes").glob(".line*.memidx-*"))) == 1
    return repo


def _said(status: str) -> list[str]:
    return [line for line in status.splitlines() if "killed part way" in line]


def test_a_forgotten_note_s_file_aside_is_named_on_one_line(tmp_path: Path) -> None:
    repo = _killed_forget(tmp_path)

    status = repo.memidx("status")

    assert status.code == 0, status
    (line,) = _said(status.err + status.out)
    assert f"so {SHOWN} stays forgotten" in line, line
    assert list((repo.root / "notes").glob(".line*")) == []


def test_an_edit_put_back_is_named_on_one_line(tmp_path: Path) -> None:
    repo = _killed_forget(tmp_path)
    (aside,) = (repo.root / "notes").glob(".line*.memidx-*")
    aside.write_bytes(aside.read_bytes() + b"An edit saved into the file aside.\n")

    status = repo.memidx("status")

    assert status.code == 0, status
    (line,) = _said(status.err + status.out)
    assert line.startswith(f"memidx: put {SHOWN} back"), line
    assert (repo.root / ODD).read_bytes().endswith(b"An edit saved into the file aside.\n")
