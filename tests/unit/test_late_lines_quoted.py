"""Paths in the lines memidx.git.late and memidx.git.index_follow write for people: a note
named with a line break was printed as it is (`took notes/line<newline>break.md out of
HEAD`), the error's one line broken in two, where every other line of memidx shows such a
name escaped (memidx.text.display: `notes/line\\nbreak.md`)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from memidx.errors import MemidxError
from memidx.git import index_edit
from memidx.git.index_follow import _put_back  # pyright: ignore[reportPrivateUsage]
from memidx.git.late import StillUnderWay, settle
from memidx.git.plumbing import Plumbing
from tests.helpers import NotesRepo

ODD = "notes/line\nbreak.md"
SHOWN = "notes/line\\nbreak.md"


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    repo = NotesRepo(tmp_path / "memory")
    repo.write(ODD, "# Line break\n")
    repo.commit("odd")
    return repo


def _one_line(error: MemidxError) -> None:
    assert "\n" not in error.message and "\n" not in error.hint, repr(error.message)
    assert SHOWN in error.message, error.message


@pytest.mark.parametrize("purge", [False, True], ids=["commit", "purge"])
def test_a_path_out_of_head_since_is_named_on_one_line(repo: NotesRepo, purge: bool) -> None:
    commit = repo.git("rev-parse", "HEAD").strip()
    repo.git("rm", "-q", "--", ODD)
    repo.git("commit", "-q", "--no-verify", "-m", "taken out")

    with pytest.raises(StillUnderWay) as raised:
        settle(Plumbing(repo.root), {}, commit, [ODD], time.monotonic(), purge=purge)

    _one_line(raised.value)


def test_the_put_back_s_error_names_the_path_on_one_line(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    blob = repo.git("rev-parse", f"HEAD:{ODD}").strip()

    def held(*_: object) -> tuple[int, str]:
        return index_edit.HELD, ""

    monkeypatch.setattr(index_edit, "put_back_entry", held)
    with pytest.raises(MemidxError) as raised:
        _put_back(Plumbing(repo.root), ODD, blob, done="memidx: done", deadline=time.monotonic())

    _one_line(raised.value)
