"""A note pending for a branch not checked out, whose ref's lock (`refs/heads/<name>.lock`)
another git holds, or a killed git left: each `update-ref` of memidx's side commit failed on
it, at once, and `memidx sync` said "main kept moving; ... (try again)" of a branch that never
moved. A lock held for the moment a ref update takes is waited for; one held all of memidx's
wait is named with its holder; one a killed git left is named with the `rm` that removes it.
And the person's edit of the note's file saved as memidx takes it out of this work tree."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import side_commit
from memidx.memory.pending_notes import keep
from tests.helpers import NotesRepo, clean_env, started_memory

TEXT = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of old logs.\n"
REF = "notes/disk-full.md"
LOCK = ".git/refs/heads/main.lock"


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    """A note left pending on main, as `remember` leaves it while git is busy, then a switch."""
    repo = started_memory(tmp_path)
    repo.write(REF, TEXT)
    keep(load_config(repo.root, env={}), REF, "Disk full", TEXT, "refs/heads/main")
    repo.git("switch", "-q", "-c", "feature")
    return repo


@pytest.fixture
def held(repo: NotesRepo) -> Iterator[subprocess.Popen[str]]:
    """A real git holding main's lock: a ref transaction prepared, waiting for its input."""
    tip = repo.git("rev-parse", "main").strip()
    git = subprocess.Popen(
        ["git", "update-ref", "--stdin"],
        cwd=repo.root,
        env=clean_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert git.stdin is not None and git.stdout is not None
        git.stdin.write(f"start\nupdate refs/heads/main {tip} {tip}\nprepare\n")
        git.stdin.flush()
        assert [git.stdout.readline(), git.stdout.readline()] == ["start: ok\n", "prepare: ok\n"]
        assert (repo.root / LOCK).exists()
        yield git
    finally:
        git.kill()
        git.wait(timeout=10)
        for pipe in (git.stdin, git.stdout):
            if pipe is not None and not pipe.closed:
                pipe.close()


def _pending(repo: NotesRepo) -> list[str]:
    return [note["path"] for note in repo.memidx("status", "--json").json()["pending_notes"]]


def test_a_lock_a_killed_git_left_is_named_with_its_rm(repo: NotesRepo) -> None:
    main_before = repo.git("rev-parse", "main")
    repo.write(LOCK, "")

    synced = repo.memidx("sync")

    assert synced.code == 0, synced.err
    lock = repo.root / LOCK
    assert f"{lock} was left behind by a git process that was killed" in synced.err, synced.err
    assert f"so main could not be moved; {REF} was not committed on main" in synced.err
    assert f"rm {lock}" in synced.err and "kept moving" not in synced.err, synced.err
    assert repo.git("rev-parse", "main") == main_before
    assert _pending(repo) == [REF]
    lock.unlink()
    assert repo.memidx("sync").code == 0
    assert repo.git("show", f"main:{REF}") == TEXT


def test_a_lock_held_all_of_memidxs_wait_names_its_holder(
    repo: NotesRepo, held: subprocess.Popen[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(side_commit, "WAIT_SECONDS", 1.0)

    synced = repo.memidx("sync")

    assert synced.code == 0, synced.err
    said = f"{repo.root / LOCK} was held by git update-ref (pid {held.pid}), so main could not"
    assert said in synced.err and "kept moving" not in synced.err, synced.err
    assert _pending(repo) == [REF]


def test_a_lock_held_for_a_moment_is_waited_for(
    repo: NotesRepo, held: subprocess.Popen[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(side_commit, "TRIES", 1)  # no other try to land after the lock goes
    assert held.stdin is not None
    let_go = threading.Timer(0.5, held.stdin.close)  # its transaction ends, its lock removed
    let_go.start()
    config = load_config(repo.root, env={})
    try:  # as the hook, finisher or sync that commits the note calls it, once
        commit = side_commit.commit_on(config, "refs/heads/main", REF, TEXT.encode(), "Disk full")
    finally:
        let_go.cancel()

    assert commit is not None and repo.git("rev-parse", "main").strip() == commit
    assert repo.git("show", f"main:{REF}") == TEXT


@pytest.mark.parametrize("in_place", [False, True], ids=["saved-by-rename", "written-in-place"])
def test_an_edit_saved_as_the_note_leaves_this_work_tree_is_kept(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch, in_place: bool
) -> None:
    """The person saves an edit of the note's file right after memidx compared it with the
    note remembered, before it removed the file: the edit was deleted with it."""
    from memidx.memory import pending_elsewhere

    real_same = pending_elsewhere.the_same_note
    edited = TEXT + "\nAn edit the person saved.\n"

    def compared_then_edited(*args: object) -> bool:
        same = real_same(*args)  # type: ignore[arg-type]
        if in_place:
            (repo.root / REF).write_text(edited)
        else:  # an editor's save: a new file renamed over it
            (repo.root / "notes" / ".disk-full.md.swp").write_text(edited)
            (repo.root / "notes" / ".disk-full.md.swp").replace(repo.root / REF)
        return same

    monkeypatch.setattr(pending_elsewhere, "the_same_note", compared_then_edited)

    synced = repo.memidx("sync")

    assert synced.code == 0, synced.err
    assert repo.git("show", f"main:{REF}") == TEXT  # the note remembered, on its branch
    assert (repo.root / REF).read_text() == edited  # the edit, kept here
    assert f"remove {REF} before you switch back" in synced.err, synced.err
    assert sorted(p.name for p in (repo.root / "notes").iterdir()) == ["disk-full.md", "start.md"]


def test_a_lock_held_by_a_git_in_another_work_tree_is_not_called_left_behind(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A git run in a linked work tree outside this one moves main (its lock closed while
    its transaction waits): its lock was called a killed git's, with the `rm` of a live
    git's lock, and not waited for."""
    monkeypatch.setattr(side_commit, "WAIT_SECONDS", 1.0)
    other = tmp_path / "other"
    repo.git("worktree", "add", "-q", "-b", "side", str(other))
    tip = repo.git("rev-parse", "main").strip()
    git = subprocess.Popen(
        ["git", "update-ref", "--stdin"],
        cwd=other,
        env=clean_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert git.stdin is not None and git.stdout is not None
        git.stdin.write(f"start\nupdate refs/heads/main {tip} {tip}\nprepare\n")
        git.stdin.flush()
        assert [git.stdout.readline(), git.stdout.readline()] == ["start: ok\n", "prepare: ok\n"]

        synced = repo.memidx("sync")
    finally:
        git.kill()
        git.wait(timeout=10)
        for pipe in (git.stdin, git.stdout):
            if pipe is not None:
                pipe.close()

    assert synced.code == 0, synced.err
    assert "left behind" not in synced.err and "rm " not in synced.err, synced.err
    said = f"{repo.root / LOCK} was held by git update-ref (pid {git.pid}), so main could not"
    assert said in synced.err, synced.err
    assert _pending(repo) == [REF]


def test_a_lock_held_by_a_git_this_user_cannot_look_into_is_not_left_behind(
    repo: NotesRepo, held: subprocess.Popen[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another user's git (a shared clone): its working folder cannot be read in /proc, and
    the lock it holds (closed) was called a killed git's, with the `rm` of a live git's lock."""
    from memidx.git.lock_holders import left_behind

    real_readlink = Path.readlink

    def another_users(self: Path) -> Path:
        if self == Path(f"/proc/{held.pid}/cwd"):
            raise PermissionError(13, "Permission denied", str(self))
        return real_readlink(self)

    monkeypatch.setattr(Path, "readlink", another_users)

    assert not left_behind(repo.root / LOCK, repo.root)
