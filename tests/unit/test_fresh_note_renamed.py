"""A brand-new note whose path another file took between its name's choice and its commit
(memidx.memory.fresh_note: a person's file saved there while git held the clone): it is
committed under the next free name, `<slug>-2.md`, and `remember` answers with that name.
It looked the note up under the first name and raised "changed before its commit" for a
note that was committed."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import GitBusy
from memidx.memory import fresh_note
from memidx.memory.pending_notes import PendingNote, pending
from memidx.memory.remember import remember
from tests.pending_memory import started

THEIRS = "# Disk full\n\nThe person's own note: the disk was full of core dumps.\n"


def test_a_new_note_whose_path_a_file_took_meanwhile_is_answered_under_its_new_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = started(tmp_path)
    real = fresh_note.commit_note
    tries: list[str] = []

    def busy_first(config: object, note: PendingNote, wait: object, branch: str) -> str:
        tries.append(note.ref)
        if len(tries) == 1:  # git held the clone; the person saved a file at the note's path
            repo.write(note.ref, THEIRS)
            raise GitBusy("git holds its index locked", "it is committed once git lets go")
        return real(config, note, wait, branch)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(fresh_note, "commit_note", busy_first)
    config = load_config(repo.root, env={})
    said: list[str] = []
    body = "The disk was full of logs: rotate them daily.\n"
    done = remember(config, "Disk full", body, notice=said.append)
    assert done.ref == "notes/disk-full-2.md" and done.commit is not None, said
    assert tries == ["notes/disk-full.md", "notes/disk-full-2.md"], said
    assert repo.git("rev-parse", "HEAD").strip() == done.commit
    assert "Disk full" in repo.git("show", "HEAD:notes/disk-full-2.md")
    assert (repo.root / "notes/disk-full.md").read_text(encoding="utf-8") == THEIRS
    assert pending(config) == [], said
    assert any("committed as notes/disk-full-2.md" in line for line in said), said
