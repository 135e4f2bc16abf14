"""`memidx share` whose merge cannot be made leaves the clone exactly as it was: HEAD, the
index, every file in the work tree (staged, unstaged, untracked, ignored), no merge in
progress, no stash; and says in one line which files and what to do. git's merge does not:
one stopped on a conflict leaves the other clone's notes staged in the work tree, one that is
not a fast-forward resets the clone and re-applies the person's work from a stash, and one
that can be made undoes an unstaged deletion without a word."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest

from memidx.config import Config, load_config
from memidx.errors import MemidxError
from memidx.memory import share as share_module
from memidx.memory.share import share
from tests.cli.test_forget import clones
from tests.helpers import NotesRepo

THEIRS = "notes/machine-2-lesson-16-part-2.md"  # the other clone's new note


def behind(tmp_path: Path, *, diverged: bool) -> NotesRepo:
    """Clone two, behind the remote where clone one added THEIRS and edited seed.md; with a
    commit of its own when `diverged` (a real merge), else a fast-forward."""
    one, two = clones(tmp_path)
    one.note("machine-2-lesson-16-part-2.md", "Lesson 16", "what machine 2 learned")
    one.note("seed.md", "Seed", "machine 2 rewrote the seed")
    one.commit("one's notes")
    one.git("push", "-q", "origin", "main")
    (two.root / ".git" / "info" / "exclude").write_text(".memidx/\n")  # as memidx's own clones
    if diverged:
        two.note("ours.md", "Ours", "a note two has not pushed")
        two.commit("two's note")
    return two


def state(repo: NotesRepo) -> dict[str, str]:
    """Everything a share must not change: HEAD, the index, each file on disk, git's status."""
    files = {
        str(path.relative_to(repo.root)): hashlib.sha1(path.read_bytes()).hexdigest()
        for path in sorted((repo.root / "notes").rglob("*"))
        if path.is_file()
    }
    return {
        "HEAD": repo.git("rev-parse", "HEAD"),
        "index": repo.git("ls-files", "-s", "--debug"),
        "status": "".join(
            line
            for line in repo.git("status", "--porcelain=v1", "-uall", "--ignored").splitlines(True)
            if ".memidx/" not in line  # memidx's own: its locks, its writer id
        ),
        "stash": repo.git("stash", "list"),
        "merging": repo.git("rev-parse", "-q", "--verify", "MERGE_HEAD", check=False),
        **files,
    }


def staged_then_deleted(repo: NotesRepo) -> None:
    (repo.root / THEIRS).write_text("the person's own draft\n")
    repo.git("add", THEIRS)
    (repo.root / THEIRS).unlink()


def deleted_unstaged(repo: NotesRepo) -> None:
    (repo.root / "notes" / "seed.md").unlink()


def untracked(repo: NotesRepo) -> None:
    (repo.root / THEIRS).write_text("the person's own draft\n")


def ignored(repo: NotesRepo) -> None:
    with (repo.root / ".git" / "info" / "exclude").open("a") as exclude:
        exclude.write("notes/machine-2-*\n")
    (repo.root / THEIRS).write_text("the person's own draft, ignored\n")


def unrelated_staged_then_deleted(repo: NotesRepo) -> None:
    (repo.root / "notes" / "draft.md").write_text("a draft\n")
    repo.git("add", "notes/draft.md")
    (repo.root / "notes" / "draft.md").unlink()


def folder_in_the_way(repo: NotesRepo) -> None:
    (repo.root / "notes" / "machine-2-lesson-16-part-2.md").mkdir()
    (repo.root / "notes" / "machine-2-lesson-16-part-2.md" / "x.md").write_text("mine\n")


def conflicting(repo: NotesRepo) -> None:
    repo.note("seed.md", "Seed", "this clone rewrote the seed too")
    repo.commit("a clash")


CASES: list[tuple[Callable[[NotesRepo], None], bool, str]] = [
    (staged_then_deleted, True, f"{THEIRS} (staged and not staged)"),
    (staged_then_deleted, False, f"{THEIRS} (staged and not staged)"),
    (deleted_unstaged, True, "notes/seed.md (not staged)"),
    (deleted_unstaged, False, "notes/seed.md (not staged)"),
    (untracked, True, f"{THEIRS} (untracked)"),
    (untracked, False, f"{THEIRS} (untracked)"),
    (ignored, True, f"{THEIRS} (ignored)"),
    (ignored, False, f"{THEIRS} (ignored)"),
    (folder_in_the_way, False, f"{THEIRS} (a folder of untracked files)"),
    (unrelated_staged_then_deleted, True, "notes/draft.md staged"),
    (conflicting, True, "merge conflict in notes/seed.md"),
]


@pytest.mark.parametrize(("person", "diverged", "named"), CASES)
def test_a_share_that_cannot_merge_leaves_the_clone_exactly_as_it_was(
    tmp_path: Path, person: Callable[[NotesRepo], None], diverged: bool, named: str
) -> None:
    two = behind(tmp_path, diverged=diverged)
    person(two)
    before = state(two)

    with pytest.raises(MemidxError) as raised:
        share(load_config(two.root, env={}), sleep=lambda _: None)

    assert state(two) == before
    assert named in raised.value.message
    assert "nothing was merged, pulled or pushed" in raised.value.message
    assert "\n" not in raised.value.message + raised.value.hint


def test_what_the_merge_does_not_touch_stays_and_the_share_gets_through(tmp_path: Path) -> None:
    """A fast-forward carries a staged note and an unstaged edit elsewhere, as git does; a
    real merge carries an unstaged edit."""
    for diverged in (False, True):
        two = behind(tmp_path / str(diverged), diverged=diverged)
        (two.root / "notes" / "mine.md").write_text("the person's draft\n")
        if not diverged:
            two.git("add", "notes/mine.md")
        with (two.root / "notes" / ("ours.md" if diverged else "mine.md")).open("a") as file:
            file.write("an edit not staged\n")
        status = two.git("status", "--porcelain=v1")

        assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed

        assert two.git("status", "--porcelain=v1") == status
        assert (two.root / THEIRS).exists()


def test_a_conflict_the_look_missed_is_undone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The merge stops on a conflict the look before it did not see (the clone changed in
    between): share aborts its merge, so no note of the other clone stays staged here."""
    two = behind(tmp_path, diverged=True)
    conflicting(two)
    status, head = two.git("status", "--porcelain=v1", "-uall"), two.git("rev-parse", "HEAD")

    def look_that_missed(config: Config) -> None:
        del config

    monkeypatch.setattr(share_module, "merge_blocker", look_that_missed)

    with pytest.raises(MemidxError, match="a person must resolve it") as raised:
        share(load_config(two.root, env={}), sleep=lambda _: None)

    assert "share undid its merge" in raised.value.message
    assert two.git("rev-parse", "-q", "--verify", "MERGE_HEAD", check=False) == ""
    assert (two.git("status", "--porcelain=v1", "-uall"), two.git("rev-parse", "HEAD")) == (
        status,
        head,
    )
    assert not (two.root / THEIRS).exists()


def test_a_folder_of_notes_the_merge_replaces_by_a_note_is_not_in_the_way(
    tmp_path: Path,
) -> None:
    """The other clone replaced the folder notes/d/ (its notes tracked here too) by a note
    notes/d: git's merge removes the folder and writes the note, as it should; share used to
    call the tracked folder an ignored file and tell the person to delete it."""
    one, two = clones(tmp_path)
    one.note("d/in.md", "In", "a note in a folder")
    one.commit("a folder")
    one.git("push", "-q", "origin", "main")
    two.git("pull", "-q", "--no-rebase", "--no-edit")
    one.git("rm", "-q", "notes/d/in.md")
    one.note("d", "D", "the folder became one note")
    one.commit("the folder replaced by a note")
    one.git("push", "-q", "origin", "main")
    two.note("ours.md", "Ours", "a note two has not pushed")
    two.commit("two's note")

    assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed

    assert (two.root / "notes" / "d").is_file()
    assert two.git("status", "--porcelain=v1", "-uall").strip() == ""


def test_a_folder_of_untracked_files_made_after_the_look_stops_share_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder of the person's untracked files appears where the merge adds a note after
    the look (a race): git refuses ("would lose untracked files in them"), and trying again
    cannot mend that; share used to try 40 times, up to 5 minutes, then name no file."""
    two = behind(tmp_path, diverged=True)
    folder_in_the_way(two)
    pauses: list[float] = []

    def look_that_missed(config: Config) -> None:
        del config

    monkeypatch.setattr(share_module, "merge_blocker", look_that_missed)

    with pytest.raises(MemidxError, match="git merge refused") as raised:
        share(load_config(two.root, env={}), sleep=pauses.append)

    assert pauses == []
    assert THEIRS in raised.value.message
    assert (two.root / THEIRS / "x.md").read_text() == "mine\n"


def test_a_file_only_intended_to_be_added_stops_a_real_merge_at_once(tmp_path: Path) -> None:
    """`git add -N` puts an entry in the index that diff --cached does not list: git's merge
    that is not a fast-forward refuses it ("not uptodate. Cannot merge."), and share used to
    try 40 times, about 3 minutes, printing git's three lines each time."""
    two = behind(tmp_path, diverged=True)
    (two.root / "notes" / "draft.md").write_text("a draft\n")
    two.git("add", "-N", "notes/draft.md")
    before = state(two)
    pauses: list[float] = []

    with pytest.raises(MemidxError) as raised:
        share(load_config(two.root, env={}), sleep=pauses.append)

    assert pauses == []
    assert "notes/draft.md staged" in raised.value.message
    assert state(two) == before
