"""Reconcile and status: the index mirrors HEAD; drift is found, reported and repaired."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memidx.index.store import DocState, open_store
from tests.helpers import NotesRepo


def setup_drift(repo: NotesRepo) -> None:
    """Index three notes, then commit an edit, a deletion, an addition and a rename."""
    repo.note("keep.md", "Keep", "unchanged words")
    repo.note("edit.md", "Edit", "old words")
    repo.note("gone.md", "Gone", "deleted words")
    repo.note("move.md", "Move", "moving words")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    repo.note("edit.md", "Edit", "new words")
    (repo.root / "notes" / "gone.md").unlink()
    repo.note("new.md", "New", "added words")
    shutil.move(repo.root / "notes" / "move.md", repo.root / "notes" / "moved.md")
    repo.commit("drift")


def test_reconcile_reports_each_kind_of_drift_and_exits_1(repo: NotesRepo) -> None:
    setup_drift(repo)
    run = repo.memidx("reconcile", "--json")
    assert run.code == 1
    assert run.json()["drift"] == {
        "missing": ["notes/new.md"],
        "stale": ["notes/edit.md"],
        "orphaned": ["notes/gone.md"],
        "renamed": [["notes/move.md", "notes/moved.md"]],
    }
    human = repo.memidx("reconcile")
    assert human.code == 1 and "memidx reconcile --fix" in human.out  # no Makefile here


def test_reconcile_fix_repairs_only_what_differs(repo: NotesRepo) -> None:
    setup_drift(repo)
    before = {r: s.id for r, s in _states(repo).items()}
    run = repo.memidx("reconcile", "--fix", "--json")
    assert run.code == 0
    report = run.json()
    assert (report["written"], report["deleted"], report["renamed"]) == (2, 1, 1)
    after = {r: s.id for r, s in _states(repo).items()}
    assert after["notes/keep.md"] == before["notes/keep.md"]
    assert after["notes/edit.md"] == before["notes/edit.md"]
    assert after["notes/moved.md"] == before["notes/move.md"]
    assert repo.memidx("reconcile").code == 0
    assert repo.memidx("search", "moving", "--json").json()["hits"][0]["ref"] == "notes/moved.md"


def _states(repo: NotesRepo) -> dict[str, DocState]:
    store, _ = open_store(repo.root / ".memidx" / "index.sqlite", write=False)
    try:
        return store.document_states("note")
    finally:
        store.conn.close()


def test_uncommitted_edits_are_not_memory_yet_and_status_lists_them(repo: NotesRepo) -> None:
    repo.note("a.md", "A", "committed words")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    repo.note("a.md", "A", "uncommitted words")
    repo.note("draft.md", "Draft", "draft words")
    assert repo.memidx("sync").code == 0
    assert repo.memidx("search", "uncommitted", "--json").json()["count"] == 0
    assert repo.memidx("search", "committed", "--json").json()["count"] == 1
    status = repo.memidx("status", "--json")
    assert status.code == 0
    data = status.json()
    assert data["uncommitted"] == [
        {"status": "M", "ref": "notes/a.md"},
        {"status": "??", "ref": "notes/draft.md"},
    ]
    assert "not memory until committed" in repo.memidx("status").out


def test_status_shows_counts_path_commit_and_drift(repo: NotesRepo) -> None:
    setup_drift(repo)
    run = repo.memidx("status")
    assert run.code == 1
    head = repo.git("rev-parse", "HEAD").strip()[:12]
    assert f"notes:       4 in commit {head}" in run.out
    assert ".memidx/index.sqlite" in run.out
    assert (
        "drift:       1 missing, 1 stale, 1 orphaned, 1 renamed (run `memidx reconcile --fix`)"
        in run.out
    )
    assert repo.memidx("reconcile", "--fix").code == 0
    healthy = repo.memidx("status", "--json")
    assert healthy.code == 0 and healthy.json()["healthy"] is True


def test_status_reports_a_missing_index(repo: NotesRepo) -> None:
    repo.note("a.md", "A", "x")
    repo.commit()
    run = repo.memidx("status")
    assert run.code == 1
    assert "no index at" in run.out and "memidx ingest" in run.out


def test_outside_git_the_working_tree_is_indexed_and_said_so(tmp_path: Path) -> None:
    folder = NotesRepo(tmp_path / "plain", init=False)
    folder.note("a.md", "Plain", "working tree words")
    run = folder.memidx("ingest")
    assert run.code == 0
    assert "not a git repository" in run.out
    assert folder.memidx("search", "working", "--json").json()["count"] == 1
    folder.note("a.md", "Plain", "changed words")
    assert folder.memidx("reconcile").code == 1
    assert folder.memidx("reconcile", "--fix").code == 0
    assert folder.memidx("search", "changed", "--json").json()["count"] == 1
    assert "not a git repository" in folder.memidx("status").out


def test_an_empty_repository_indexes_nothing_without_error(repo: NotesRepo) -> None:
    run = repo.memidx("ingest")
    assert run.code == 0
    assert "an empty repository" in run.out
    assert repo.memidx("search", "x", "--json").json()["count"] == 0


@pytest.mark.parametrize("staged", [False, True])
def test_a_deleted_note_is_said_to_be_memory_still_until_its_deletion_is_committed(
    repo: NotesRepo, staged: bool
) -> None:
    """A ` D` note (a forget that failed, a person's rm) was listed as "changed but not
    committed (not memory until committed)": still memory, the next `git commit -a` forgets
    it (tests/benchmark/chaos.py's work-tree leftovers)."""
    repo.note("a.md", "A", "committed words")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    if staged:
        repo.git("rm", "-q", "notes/a.md")
    else:
        (repo.root / "notes" / "a.md").unlink()

    out = repo.memidx("status").out

    assert (
        "1 note changed but not committed (an edit or a new note is not memory until committed); "
        "1 deleted but still in "
        "HEAD, so still memory until a commit of the deletion forgets it (`git commit -a` would; "
        "`git restore --staged --worktree -- PATH` keeps it)"
    ) in out, out
    assert repo.memidx("search", "committed", "--json").json()["count"] == 1


def test_a_note_added_then_deleted_is_not_said_to_be_in_head(repo: NotesRepo) -> None:
    """`AD` (staged as new, then its file deleted): HEAD never held it, no memory to forget; it
    was counted "deleted but still in HEAD, so still memory" beside the person's own ` D`."""
    repo.note("a.md", "A", "committed words")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    repo.note("new.md", "New", "staged words")
    repo.git("add", "notes/new.md")
    (repo.root / "notes" / "new.md").unlink()
    (repo.root / "notes" / "a.md").unlink()

    out = repo.memidx("status").out

    assert "2 notes changed but not committed" in out, out
    assert "; 1 deleted but still in HEAD" in out, out
