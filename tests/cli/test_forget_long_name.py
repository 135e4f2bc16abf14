"""A note named near the file system's limit (255 bytes): forget moves the note's file aside
as `.<name>.memidx-<pid>` before its compare and unlink, a name 16 bytes longer that the file
system refuses. The note was forgotten in HEAD, its file left untracked in the work tree, and
forget warned the person had edited it (their "edit", `git add`-ed back as told, was the
forgotten note)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.git import index_swap
from tests.helpers import started_memory

NAME = f"ops/{'deploy-' * 34}x.md"  # a file name of 242 bytes: no `.<name>.memidx-<pid>`


def _never(*_: object) -> bool:
    return False


@pytest.mark.parametrize("fast", [True, False], ids=["swap", "forget"])
def test_a_note_with_a_long_name_is_forgotten_and_its_file_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast: bool
) -> None:
    repo = started_memory(tmp_path)
    ref = repo.note(NAME, "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("deploy")
    if not fast:  # no swap, no shell: forget deletes the file itself once HEAD lacks it
        monkeypatch.setattr(index_swap, "usable", _never)
        monkeypatch.setattr("memidx.children.SHELL", None)

    said = repo.memidx("forget", ref)

    monkeypatch.undo()
    assert said.code == 0, said
    assert "changed while it was being forgotten" not in said.err, said.err
    assert not (repo.root / ref).exists()
    assert repo.git("status", "--porcelain", "-uall") == ""
