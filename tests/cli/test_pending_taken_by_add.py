"""A note left pending by a long-busy git has its file in the work tree before its commit (so
the person sees it), where a person's `git add -A` takes it: it is still committed once, by
memidx (staged as it is) or by the person's own commit, which memidx counts as its commit."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.memory.pending_notes import keep
from tests.helpers import NotesRepo, started_memory

TEXT = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of old logs.\n"
REF = "notes/disk-full.md"


@pytest.mark.parametrize("person_commits", [False, True])
def test_a_pending_note_a_git_add_took_is_committed_once(
    tmp_path: Path, person_commits: bool
) -> None:
    repo: NotesRepo = started_memory(tmp_path)
    repo.write(REF, TEXT)
    keep(load_config(repo.root, env={}), REF, "Disk full", TEXT, "refs/heads/main")
    repo.git("add", "-A")
    if person_commits:
        repo.git("commit", "-q", "--no-verify", "-m", "the person's commit")
    synced = repo.memidx("sync")
    assert synced.code == 0, synced.err
    head = repo.git("rev-parse", "--short=12", "HEAD").strip()
    assert f"committed {REF}, remembered while git was busy, as {head}" in synced.err
    assert len(repo.git("log", "--format=%h", "--", REF).split()) == 1  # once
    assert repo.git("status", "--porcelain", "--", "notes") == ""
    assert repo.memidx("status", "--json").json()["pending_notes"] == []
