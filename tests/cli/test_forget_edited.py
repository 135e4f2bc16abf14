"""A forget of a note the person changed and did not commit: its commit deleted the file with
the person's edit in it (staged or not), with no word of it. It is refused, nothing changed;
a note the person deleted is forgotten as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import NotesRepo, started_memory

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


def _conflict(repo: NotesRepo) -> None:
    """A merge stopped at a conflict in the note, the person's resolution written, not added."""
    repo.git("switch", "-q", "-c", "side")
    repo.write(REF, (repo.root / REF).read_text() + "Side's line.\n")
    repo.commit("side")
    repo.git("switch", "-q", "main")
    repo.write(REF, (repo.root / REF).read_text() + "Main's line.\n")
    repo.commit("main")
    repo.git("merge", "-q", "side", check=False)
    repo.write(REF, "# Deploy\n\nDeploys go out on Tuesdays, as the person resolved it.\n")


HIDDEN = {  # the git command after which git status does not show an edit as one
    "untracked by git rm --cached": ("rm", "-q", "--cached", REF),
    "assume-unchanged": ("update-index", "--assume-unchanged", REF),
    "skip-worktree": ("update-index", "--skip-worktree", REF),
}


@pytest.mark.parametrize("hidden", sorted(HIDDEN))
def test_an_edit_git_status_does_not_show_is_not_forgotten(tmp_path: Path, hidden: str) -> None:
    repo = started_memory(tmp_path)
    repo.note("deploy.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("deploy")
    repo.git(*HIDDEN[hidden])
    edited = (repo.root / REF).read_text() + "\nThe person's own line, not committed.\n"
    (repo.root / REF).write_text(edited)
    head = repo.git("rev-parse", "HEAD").strip()

    said = repo.memidx("forget", REF)

    assert said.code == 1 and f"{REF} has changes not committed" in said.err, said
    assert (repo.root / REF).read_text() == edited
    assert repo.git("rev-parse", "HEAD").strip() == head


def test_a_note_whose_conflict_the_person_resolved_is_not_forgotten(tmp_path: Path) -> None:
    """One with git's markers in it still is (the merge resolved as its deletion:
    tests/cli/test_two_machines.py); the person's resolution was deleted with it."""
    repo = started_memory(tmp_path)
    repo.note("deploy.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("deploy")
    _conflict(repo)
    resolved = (repo.root / REF).read_text()
    head = repo.git("rev-parse", "HEAD").strip()

    said = repo.memidx("forget", REF)

    assert said.code == 1 and f"{REF} has changes not committed" in said.err, said
    assert (repo.root / REF).read_text() == resolved
    assert repo.git("rev-parse", "HEAD").strip() == head
    assert repo.git("status", "--porcelain", "--", REF).startswith("UU ")


def test_a_note_whose_line_endings_autocrlf_changed_is_forgotten(tmp_path: Path) -> None:
    """`git status` says ` M` of it (its index entry's stat), `git diff HEAD` nothing."""
    repo = started_memory(tmp_path)
    repo.note("deploy.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("deploy")
    repo.git("config", "core.autocrlf", "true")
    path = repo.root / REF
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))

    said = repo.memidx("forget", REF)

    assert said.code == 0, said
    assert REF not in repo.git("ls-tree", "-r", "--name-only", "HEAD")
    assert not path.exists()


def test_a_note_committed_with_crlf_under_autocrlf_input_is_forgotten(tmp_path: Path) -> None:
    """A note committed with CRLF line ends (from a Windows clone, or before autocrlf=input
    was set): git keeps them (`git status`, `git diff HEAD`: nothing), but forget hashed the
    file through autocrlf's filter, LF, and refused it as `has changes not committed`."""
    repo = started_memory(tmp_path)
    repo.write(REF, "---\r\ntitle: Deploy\r\n---\r\n\r\nDeploys go out on Tuesdays.\r\n")
    repo.commit("deploy")
    repo.git("config", "core.autocrlf", "input")
    assert repo.git("status", "--porcelain") == "" and repo.git("diff", "HEAD") == ""

    said = repo.memidx("forget", REF)

    assert said.code == 0, said
    assert REF not in repo.git("ls-tree", "-r", "--name-only", "HEAD")
    assert not (repo.root / REF).exists() and repo.git("status", "--porcelain") == ""


NEW = "notes/new.md"
STAGED = {  # a note of the person's that HEAD does not hold and git's index does
    "added": ("add", NEW),
    "renamed": ("mv", REF, NEW),
}


@pytest.mark.parametrize("how", sorted(STAGED))
def test_a_note_the_person_staged_and_did_not_commit_is_not_forgotten(
    tmp_path: Path, how: str
) -> None:
    """Forget deleted the file with "it was never committed" (exit 0), and git's index kept
    it: the person's next `git commit` committed it all the same (` AD`, `RD`)."""
    repo = started_memory(tmp_path)
    repo.note("deploy.md", "Deploy", "Deploys go out on Tuesdays.")
    repo.commit("deploy")
    if how == "added":
        repo.note("new.md", "New", "The person's own note, not committed.")
    repo.git(*STAGED[how])
    words = (repo.root / NEW).read_text() + "The person's own line.\n"
    (repo.root / NEW).write_text(words)
    status = repo.git("status", "--porcelain")

    said = repo.memidx("forget", NEW)

    assert said.code == 1, said
    assert f"{NEW} is staged in git's index (never committed)" in said.err, said.err
    assert (repo.root / NEW).read_text() == words
    assert repo.git("status", "--porcelain") == status
