"""A pending note kept unwritten (memory/fresh_note.py: its text in its entry alone, no file
in any work tree): nothing may drop its entry but its commit or `memidx forget`, for the entry
is all there is of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import Config, load_config
from memidx.memory.pending_notes import commit_pending, keep, pending
from tests.helpers import NotesRepo
from tests.pending_memory import REF, TEXT, started


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    return started(tmp_path)


def _kept(repo: NotesRepo) -> Config:
    config = load_config(repo.root, env={})
    keep(config, REF, "Disk full", TEXT, "refs/heads/main", unwritten=True)
    return config


def test_an_unwritten_note_whose_commit_on_its_branch_fails_stays_pending(
    repo: NotesRepo,
) -> None:
    """The person switched away; its commit on main fails (no author identity): the entry was
    dropped with "(the file is kept)", no file anywhere, the note lost."""
    config = _kept(repo)
    repo.git("switch", "-q", "-c", "side")
    repo.git("config", "user.name", "")  # git refuses an empty name: "empty ident name"
    said: list[str] = []
    done = commit_pending(config, None, said.append)
    assert done.commits == {} and done.elsewhere == {}
    assert [note.text for note in pending(config)] == [TEXT], said
    assert len(said) == 1 and "the note stays pending" in said[0], said
    assert f"memidx forget {REF}" in said[0] and "(the file is kept)" not in said[0]
    repo.git("config", "--unset", "user.name")
    done = commit_pending(config, None, said.append)
    assert list(done.elsewhere) == [REF] and pending(config) == [], said
    assert repo.git("show", f"main:{REF}") == TEXT


@pytest.mark.parametrize("committed", [False, True])
def test_an_unwritten_note_whose_path_another_file_took_is_committed_beside_it(
    repo: NotesRepo, committed: bool
) -> None:
    """Another file came to its path before its commit (a person's, one a rebase brought): it
    was taken for the note, then dropped as "changed or was removed", the note never written."""
    config = _kept(repo)
    theirs = "# Disk full\n\nThe person's own note: the disk was full of core dumps.\n"
    repo.write(REF, theirs)
    if committed:
        repo.commit("the person's note at that path")
    said: list[str] = []
    done = commit_pending(config, None, said.append)
    assert list(done.commits) == ["notes/disk-full-2.md"] and pending(config) == [], said
    assert len(said) == 1 and "committed as notes/disk-full-2.md" in said[0], said
    assert repo.git("show", "HEAD:notes/disk-full-2.md") == TEXT
    assert (repo.root / REF).read_text(encoding="utf-8") == theirs
    assert repo.git("status", "--porcelain") == ("" if committed else f"?? {REF}\n")


def test_an_unwritten_note_head_holds_is_not_committed_twice(repo: NotesRepo) -> None:
    """Its commit landed (its file not checked out yet, or deleted since): no second name."""
    config = _kept(repo)
    repo.write(REF, TEXT)
    repo.commit("memidx remember: Disk full")
    (repo.root / REF).unlink()
    said: list[str] = []
    assert commit_pending(config, None, said.append).commits == {}
    assert sorted(path.name for path in (repo.root / "notes").iterdir()) == ["start.md"]
    assert pending(config) == [] and len(repo.git("log", "--format=%s").splitlines()) == 2


def test_an_unwritten_note_whose_branch_holds_another_file_there_is_not_said_kept_here(
    repo: NotesRepo,
) -> None:
    """Its branch, not checked out, holds another file at its path: the hint said "the file is
    kept in this work tree" of a note never written in any; it is committed beside that file
    once its branch is checked out."""
    config = load_config(repo.root, env={})
    repo.git("branch", "side")
    repo.write(REF, "# Disk full\n\nThe person's own note: core dumps.\n")
    repo.commit("the person's note at that path")
    repo.git("switch", "-q", "side")
    keep(config, REF, "Disk full", TEXT, "refs/heads/main", unwritten=True)
    said: list[str] = []
    done = commit_pending(config, None, said.append)
    assert done.commits == {} and [note.ref for note in pending(config)] == [REF], said
    assert len(said) == 1 and "main holds another" in said[0], said
    assert "kept in this work tree" not in said[0] and "git switch main" in said[0], said
    assert not (repo.root / REF).exists()
    repo.git("switch", "-q", "main")
    done = commit_pending(config, None, said.append)
    assert list(done.commits) == ["notes/disk-full-2.md"] and pending(config) == [], said
