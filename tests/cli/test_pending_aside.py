"""A pending note's file, moved aside as memidx commits the note on its branch
(memidx.memory.pending_elsewhere): never left in a hidden file unsaid, never moved over one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.memory.pending_notes import keep
from tests.helpers import NotesRepo, started_memory

TEXT = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of old logs.\n"
REF = "notes/disk-full.md"


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    repo = started_memory(tmp_path)
    repo.write(REF, TEXT)  # as a `remember` on main leaves it while git is busy
    keep(load_config(repo.root, env={}), REF, "Disk full", TEXT, "refs/heads/main")
    repo.git("switch", "-q", "-c", "feature")
    return repo


def test_an_edit_kept_aside_beside_a_new_save_is_named(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The editor had the file open: its write lands in the file memidx moved aside, and
    another save makes a new file at the note's path. The edit stayed in a hidden
    notes/.disk-full.md.memidx-<pid>, said nowhere (sync: "remove notes/disk-full.md")."""
    edited, other = TEXT + "\nThe edit.\n", TEXT + "\nAnother save.\n"
    real_rename = Path.rename

    def moved_then_saved(self: Path, target: str | os.PathLike[str]) -> Path:
        done = real_rename(self, target)
        if ".memidx-" in Path(target).name:
            Path(target).write_text(edited)  # through the file opened before the move
            (repo.root / REF).write_text(other)  # and a save at its path
        return done

    monkeypatch.setattr(Path, "rename", moved_then_saved)

    synced = repo.memidx("sync")

    aside = f"notes/.disk-full.md.memidx-{os.getpid()}"
    assert synced.code == 0, synced.err
    assert repo.git("show", f"main:{REF}") == TEXT
    assert (repo.root / aside).read_text() == edited
    assert (repo.root / REF).read_text() == other
    assert f"an edit of it saved meanwhile is kept in {aside}" in synced.err, synced.err
    assert repo.memidx("status", "--json").json()["moved_aside"] == [aside]
    shown = repo.memidx("status").out
    assert "moved aside:" in shown and aside in shown, shown


def test_a_file_left_aside_by_a_killed_memidx_is_never_moved_over(repo: NotesRepo) -> None:
    """A memidx killed between the move and the compare left the file aside; one with the same
    pid later renamed the next note's file over it, and the edit it held was gone."""
    left = repo.root / "notes" / f".disk-full.md.memidx-{os.getpid()}"
    left.write_text(TEXT + "\nAn edit memidx was killed with.\n")

    synced = repo.memidx("sync")

    assert synced.code == 0, synced.err
    assert "its file left this work tree" in synced.err, synced.err
    assert not (repo.root / REF).exists()
    assert left.read_text() == TEXT + "\nAn edit memidx was killed with.\n"
    assert repo.memidx("status", "--json").json()["moved_aside"] == [
        left.relative_to(repo.root).as_posix()
    ]


def test_a_note_committed_on_its_branch_by_a_memidx_stopped_after_the_move_is_said_so(
    repo: NotesRepo,
) -> None:
    """memidx killed after its commit on main and the move of the file aside, before its
    compare: the next sync said the note "was not committed" (commit it yourself), of a note
    main holds, whose file was not there to commit."""
    from memidx.git import side_commit

    config = load_config(repo.root, env={})
    commit = side_commit.commit_on(config, "refs/heads/main", REF, TEXT.encode(), "Disk full")
    assert commit is not None
    # its pid since taken by a process that lives (this one): not provably a dead memidx's
    left = repo.root / "notes" / f".disk-full.md.memidx-{os.getpid()}"
    (repo.root / REF).rename(left)

    synced = repo.memidx("sync")

    assert synced.code == 0, synced.err
    assert "was not committed" not in synced.err, synced.err
    assert f"{REF} is committed on main already, as remembered" in synced.err, synced.err
    assert repo.git("rev-parse", "main").strip() == commit  # committed once
    assert repo.memidx("status", "--json").json()["pending_notes"] == []
    assert repo.memidx("status", "--json").json()["moved_aside"] == [
        left.relative_to(repo.root).as_posix()
    ]


def test_a_file_a_killed_memidx_left_aside_is_put_back_and_its_work_finished(
    repo: NotesRepo,
) -> None:
    """The same, its memidx gone (memidx.git.killed_edit): the next sync puts the file back,
    then takes it out of this work tree as that memidx was doing; main committed once, and no
    file left aside for `git add -A` to take."""
    from memidx.git import side_commit

    config = load_config(repo.root, env={})
    commit = side_commit.commit_on(config, "refs/heads/main", REF, TEXT.encode(), "Disk full")
    assert commit is not None
    left = repo.root / "notes" / ".disk-full.md.memidx-4194303"  # a pid no process has here
    (repo.root / REF).rename(left)

    synced = repo.memidx("sync")

    assert synced.code == 0, synced.err
    assert f"put {REF} back, which a memidx killed part way had moved aside" in synced.err
    assert f"committed {REF} on main" in synced.err and "its file left this" in synced.err
    assert repo.git("rev-parse", "main").strip() == commit  # committed once
    status = repo.memidx("status", "--json").json()
    assert status["pending_notes"] == [] and status["moved_aside"] == []
    assert not left.exists() and not (repo.root / REF).exists()


def test_an_edit_that_cannot_be_linked_back_is_named_for_what_it_is(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A disk without hard links (exFAT, some network file systems): the edit found in the
    file moved aside stays there, and the line said another file had been saved at the
    note's path, where there was none."""
    edited = TEXT + "\nThe edit.\n"
    real_rename = Path.rename

    def moved_then_edited(self: Path, target: str | os.PathLike[str]) -> Path:
        done = real_rename(self, target)
        if ".memidx-" in Path(target).name:
            Path(target).write_text(edited)  # through the file opened before the move
        return done

    def no_hard_links(self: Path, target: str | os.PathLike[str]) -> None:
        raise PermissionError(1, "Operation not permitted", str(self))

    monkeypatch.setattr(Path, "rename", moved_then_edited)
    monkeypatch.setattr(Path, "hardlink_to", no_hard_links)

    synced = repo.memidx("sync")

    aside = f"notes/.disk-full.md.memidx-{os.getpid()}"
    assert synced.code == 0, synced.err
    assert (repo.root / aside).read_text() == edited
    assert not (repo.root / REF).exists()
    said = f"kept in {aside}, it could not be put back (Operation not permitted)"
    assert said in synced.err and "another file" not in synced.err, synced.err


def test_a_file_moved_aside_that_cannot_be_removed_is_listed_not_a_failure(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The note's file, moved aside and found as remembered, could not be removed (a
    permission, an immutable flag): sync failed (exit 1, "Operation not permitted") once the
    note was committed on its branch, its entry left behind."""
    real_unlink = Path.unlink

    def refused(self: Path, missing_ok: bool = False) -> None:
        if ".memidx-" in self.name:
            raise PermissionError(1, "Operation not permitted", str(self))
        real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", refused)

    synced = repo.memidx("sync")

    aside = f"notes/.disk-full.md.memidx-{os.getpid()}"
    assert synced.code == 0, synced.err
    assert "its file left this work tree" in synced.err, synced.err
    monkeypatch.setattr(Path, "unlink", real_unlink)
    assert repo.memidx("status", "--json").json()["moved_aside"] == [aside]
