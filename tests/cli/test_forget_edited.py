"""A forget of a note the person changed and did not commit: its commit deleted the file with
the person's edit in it (staged or not), with no word of it. It is refused, nothing changed;
a note the person deleted is forgotten as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import started_memory

REF = "notes/deploy.md"


@pytest.mark.parametrize("staged", [False, True])
def test_a_note_the_person_edited_is_not_forgotten(tmp_path: Path, staged: bool) -> None:
    repo = started_memory(tmp_path)
    repo.note("deploy.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("deploy")
    head = repo.git("rev-parse", "HEAD").strip()
    edited = (repo.root / REF).read_text() + "\nThe person's own line, not committed.\n"
    (repo.root / REF).write_text(edited)
    if staged:
        repo.git("add", REF)

    said = repo.memidx("forget", REF)

    assert said.code == 1, said
    assert f"{REF} has changes not committed" in said.err and "Traceback" not in said.err
    assert (repo.root / REF).read_text() == edited
    assert repo.git("rev-parse", "HEAD").strip() == head


def test_a_note_the_person_deleted_is_forgotten(tmp_path: Path) -> None:
    repo = started_memory(tmp_path)
    repo.note("deploy.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("deploy")
    (repo.root / REF).unlink()

    said = repo.memidx("forget", REF)

    assert said.code == 0, said
    assert REF not in repo.git("ls-tree", "-r", "--name-only", "HEAD")
    assert repo.git("status", "--porcelain") == ""
