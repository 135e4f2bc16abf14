"""`memidx status` names the notes `remember` left pending: listed before only as untracked
files, with nothing to say they wait for a commit, since when, or why."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.memory.pending_notes import keep
from memidx.memory.pending_status import COMMITTED_SOON
from tests.helpers import NotesRepo

TEXT = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of old logs.\n"
REF = "notes/disk-full.md"


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    repo = NotesRepo(tmp_path / "memory")
    repo.write(".gitignore", ".memidx/\n")
    repo.write("notes/start.md", "# Start\n\nThe first note of this memory, in English words.\n")
    repo.commit("start")
    assert repo.memidx("ingest").code == 0
    return repo


def test_status_names_the_pending_notes_how_old_and_why_they_wait(repo: NotesRepo) -> None:
    quiet = repo.memidx("status", "--json").json()
    assert quiet["pending_notes"] == [] and "pending:" not in repo.memidx("status").out
    config = load_config(repo.root, env={})
    repo.write(REF, TEXT)
    keep(config, REF, "Disk full", TEXT, "refs/heads/main")
    keep(config, REF, "Disk full", TEXT, "refs/heads/main")  # kept twice: one note still
    (repo.root / ".git" / "index.lock").touch()  # a person's git holds the clone
    try:
        shown = repo.memidx("status")
        data = repo.memidx("status", "--json").json()
    finally:
        (repo.root / ".git" / "index.lock").unlink()
    line = "1 note written, not committed yet (the oldest under a minute old): git holds its"
    assert f"pending:     {line} index locked\n" in shown.out, shown.out
    [note] = data["pending_notes"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", note.pop("since"))
    assert note == {"path": REF, "branch": "refs/heads/main", "why": "git holds its index locked"}
    assert data["uncommitted"] == [{"status": "??", "ref": REF}]  # as before
    [note] = repo.memidx("status", "--json").json()["pending_notes"]
    assert note["why"] == COMMITTED_SOON  # git let go: the finisher or a sync commits it
    (repo.root / ".git" / "CHERRY_PICK_HEAD").touch()  # as a pick stopped on a conflict leaves
    [note] = repo.memidx("status", "--json").json()["pending_notes"]
    (repo.root / ".git" / "CHERRY_PICK_HEAD").unlink()
    assert note["why"] == "a cherry-pick is stopped on a conflict"
    repo.git("checkout", "-q", "-b", "other")
    [note] = repo.memidx("status", "--json").json()["pending_notes"]
    assert note["why"] == "its branch, main, is not checked out"
