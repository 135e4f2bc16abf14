"""A pending note whose file is gone before its commit (memory/pending_vanished.py): written
again from its entry and committed, unless a stash holds it (it waits for the pop) or HEAD
holds its path (the person's deletion, theirs)."""

from __future__ import annotations

import hashlib
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
    repo.write(REF, TEXT)
    keep(config, REF, "Disk full", TEXT, "refs/heads/main")
    return config


def _subjects(repo: NotesRepo) -> list[str]:
    return repo.git("log", "--format=%s", "--", REF).splitlines()


@pytest.mark.parametrize("how", ["staged then reset --hard", "folder removed"])
def test_a_pending_note_whose_file_is_gone_is_written_again_and_committed(
    repo: NotesRepo, how: str
) -> None:
    """Git stored its bytes (`git add`, or memidx's commit built before git was found busy)."""
    config = _kept(repo)
    repo.git("hash-object", "-w", REF)  # as a commit built, then refused (a person's commit)
    if how == "folder removed":
        for path in (repo.root / "notes").iterdir():
            path.unlink()
        (repo.root / "notes").rmdir()
        repo.git("add", "-A")  # the person staged the deletion of notes/start.md too
        repo.git("commit", "-q", "--no-verify", "-m", "start gone")
    else:
        repo.git("add", REF)
        repo.git("reset", "-q", "--hard")
    said: list[str] = []
    done = commit_pending(config, None, said.append)
    assert list(done.commits) == [REF] and pending(config) == [], said
    assert len(said) == 1 and "written again from its pending entry" in said[0], said
    assert f"memidx forget {REF}" in said[0]
    assert (repo.root / REF).read_text(encoding="utf-8") == TEXT
    assert _subjects(repo) == ["memidx remember: Disk full"]
    assert repo.git("status", "--porcelain", "-uall") == ""


@pytest.mark.parametrize("how", ["rm", "git clean -f"])
def test_a_pending_note_the_person_deleted_before_git_stored_it_is_theirs(
    repo: NotesRepo, how: str
) -> None:
    """No git command takes a file git never stored: its `rm` is the person's, never undone
    (written again, it was committed against their will)."""
    config = _kept(repo)
    if how == "rm":
        (repo.root / REF).unlink()
    else:
        repo.git("clean", "-q", "-f", "--", REF)
    said: list[str] = []
    assert commit_pending(config, None, said.append).commits == {}
    assert not (repo.root / REF).exists() and pending(config) == [] and _subjects(repo) == []
    assert len(said) == 1 and "changed or was removed" in said[0], said


def test_a_pending_note_a_stash_took_waits_for_the_pop(repo: NotesRepo) -> None:
    """Written again while `git stash -u` holds it, the pop failed: "already exists"."""
    config = _kept(repo)
    repo.git("stash", "-u", "-q")
    said: list[str] = []
    assert commit_pending(config, None, said.append).commits == {}
    assert len(pending(config)) == 1 and not (repo.root / REF).exists()
    assert len(said) == 1 and "`git stash pop` brings it back" in said[0], said
    repo.git("stash", "pop", "-q")
    assert list(commit_pending(config, None, said.append).commits) == [REF]
    assert _subjects(repo) == ["memidx remember: Disk full"] and pending(config) == []


def test_a_pending_note_the_person_committed_then_deleted_is_theirs(repo: NotesRepo) -> None:
    """HEAD holds the path: its file gone is a deletion the person's next commit makes."""
    config = _kept(repo)
    repo.commit("the person's")
    (repo.root / REF).unlink()
    said: list[str] = []
    assert commit_pending(config, None, said.append).commits == {}
    assert pending(config) == [] and not (repo.root / REF).exists()
    assert len(said) == 1 and "changed or was removed" in said[0], said


def test_a_file_saved_at_the_path_meanwhile_is_never_overwritten(repo: NotesRepo) -> None:
    config = _kept(repo)
    (repo.root / REF).write_text("the person's own file\n", encoding="utf-8")
    said: list[str] = []
    assert commit_pending(config, None, said.append).commits == {}
    assert (repo.root / REF).read_text(encoding="utf-8") == "the person's own file\n"
    assert len(said) == 1 and "changed or was removed" in said[0], said


@pytest.mark.parametrize("staged", [False, True])
def test_a_pending_note_the_person_moved_is_not_written_again(
    repo: NotesRepo, staged: bool
) -> None:
    """An `mv` (or `git add`, then `git mv`) to another name: written again, the note was in
    memory twice, under both names."""
    config = _kept(repo)
    if staged:
        repo.git("add", REF)
        repo.git("mv", REF, "notes/disk-was-full.md")
    else:
        (repo.root / REF).rename(repo.root / "notes" / "disk-was-full.md")
    said: list[str] = []
    assert commit_pending(config, None, said.append).commits == {}
    assert not (repo.root / REF).exists() and pending(config) == []
    assert len(said) == 1 and "changed or was removed" in said[0], said


@pytest.mark.parametrize("how", ["rm", "git add then git rm -f", "git stash -u then drop"])
def test_a_pending_note_git_stored_that_the_person_removed_on_purpose_is_not_written_again(
    repo: NotesRepo, how: str
) -> None:
    """Git stored its bytes, then the person removed it (no git command moved HEAD since, or
    the stash that held it was dropped): it was written again and committed against their
    will. Its entry goes, said with the command that brings it back."""
    config = _kept(repo)
    repo.git("hash-object", "-w", REF)  # as a commit built, then refused (a person's commit)
    if how == "rm":
        (repo.root / REF).unlink()
    elif how == "git add then git rm -f":
        repo.git("add", REF)
        repo.git("rm", "-q", "-f", REF)
    else:
        repo.git("stash", "-u", "-q")
        repo.git("stash", "drop", "-q")
    said: list[str] = []
    assert commit_pending(config, None, said.append).commits == {}, said
    assert not (repo.root / REF).exists() and pending(config) == [] and _subjects(repo) == []
    assert len(said) == 1 and "was removed on purpose" in said[0], said
    assert ("stash" in said[0]) == how.startswith("git stash"), said
    data = TEXT.encode("utf-8")
    blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    assert f"git cat-file -p {blob} > {REF}" in said[0], said
