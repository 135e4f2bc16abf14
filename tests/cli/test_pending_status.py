"""`memidx status` names the notes `remember` left pending: listed before only as untracked
files, with nothing to say they wait for a commit, since when, or why."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.memory.pending_finisher import FINISHER_LOCK
from memidx.memory.pending_mark import FOLDER
from memidx.memory.pending_notes import keep
from memidx.memory.pending_status import COMMITTED_SOON, NO_FINISHER
from memidx.portable import file_lock
from tests.cli.test_remember import hold_open
from tests.helpers import NotesRepo, started_memory

TEXT = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of old logs.\n"
REF = "notes/disk-full.md"


@pytest.fixture
def repo(tmp_path: Path) -> NotesRepo:
    return started_memory(tmp_path)


def test_status_names_the_pending_notes_how_old_and_why_they_wait(repo: NotesRepo) -> None:
    quiet = repo.memidx("status", "--json").json()
    assert quiet["pending_notes"] == [] and "pending:" not in repo.memidx("status").out
    config = load_config(repo.root, env={})
    repo.write(REF, TEXT)
    keep(config, REF, "Disk full", TEXT, "refs/heads/main")
    keep(config, REF, "Disk full", TEXT, "refs/heads/main")  # kept twice: one note still
    holder = hold_open(repo.root / ".git" / "index.lock", 30)  # a person's git holds the clone
    try:
        shown = repo.memidx("status")
        data = repo.memidx("status", "--json").json()
    finally:
        holder.kill()  # the lock it held stays, as a killed git's: named so
        holder.wait()
    lock = repo.root / ".git" / "index.lock"
    [left] = repo.memidx("status", "--json").json()["pending_notes"]
    assert left["why"] == (
        f"{lock} was left behind by a git process that was killed as it took it: it is empty "
        f"(no running process holds it): check that no git command is running, then remove it "
        f"(rm {lock}); the note is committed once it is removed"
    )
    assert (
        f"pending:     1 note written, not committed yet (the oldest under a minute old): {lock}"
        in repo.memidx("status").out
    )
    lock.unlink()
    line = "1 note written, not committed yet (the oldest under a minute old): git holds its"
    assert f"pending:     {line} index locked\n" in shown.out, shown.out
    [note] = data["pending_notes"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", note.pop("since"))
    assert note == {"path": REF, "branch": "refs/heads/main", "why": "git holds its index locked"}
    assert data["uncommitted"] == [{"status": "??", "ref": REF}]  # as before
    [note] = repo.memidx("status", "--json").json()["pending_notes"]
    assert note["why"] == NO_FINISHER  # git let go, and no finisher runs: a sync commits it
    with file_lock(config.state_dir / FOLDER / FINISHER_LOCK, wait=False) as taken:
        assert taken  # as a finisher that looks holds it
        [note] = repo.memidx("status", "--json").json()["pending_notes"]
    assert note["why"] == COMMITTED_SOON  # git let go: the finisher or a sync commits it
    (repo.root / ".git" / "CHERRY_PICK_HEAD").touch()  # as a pick stopped on a conflict leaves
    [note] = repo.memidx("status", "--json").json()["pending_notes"]
    (repo.root / ".git" / "CHERRY_PICK_HEAD").unlink()
    assert note["why"] == "a cherry-pick is stopped on a conflict"
    repo.git("checkout", "-q", "-b", "other")
    [note] = repo.memidx("status", "--json").json()["pending_notes"]
    assert note["why"] == (
        "its branch, main, is not checked out: the next `memidx sync` (or `remember`, or a git "
        "hook) commits it on main without checking it out"
    )


def test_a_note_of_a_deleted_branch_is_not_said_to_wait_for_it(repo: NotesRepo) -> None:
    """A note remembered on a branch deleted since is committed on the branch checked out (the
    next `memidx sync` does so at once); status said it waited for the deleted branch."""
    config = load_config(repo.root, env={})
    repo.git("checkout", "-q", "-b", "gone")
    repo.write(REF, TEXT)
    keep(config, REF, "Disk full", TEXT, "refs/heads/gone")
    repo.git("checkout", "-q", "main")
    repo.git("branch", "-q", "-D", "gone")
    [note] = repo.memidx("status", "--json").json()["pending_notes"]
    assert note["why"] == NO_FINISHER, note


def test_the_rm_of_a_killed_gits_lock_names_a_path_with_a_space_whole(tmp_path: Path) -> None:
    """`rm /x/my memory/.git/index.lock`, pasted, removed /x/my and not the lock: remember's
    error and status's pending line give the path quoted for the shell."""
    repo = NotesRepo(tmp_path / "my memory")
    repo.write("notes/start.md", "# Start\n\nThe first note of this memory, in English words.\n")
    repo.commit("start")
    assert repo.memidx("ingest").code == 0
    lock = repo.root / ".git" / "index.lock"
    lock.write_text("left by a git that was killed")
    said = repo.memidx_process("remember", "--title", "Disk full", stdin="The disk was full.\n")
    assert said.code == 1 and f"rm '{lock}'" in said.err, said.err
    [left] = repo.memidx("status", "--json").json()["pending_notes"]
    assert f"(rm '{lock}')" in left["why"]
    lock.unlink()
    for _ in range(300):  # the finisher remember started commits the note, then ends
        if "disk-full" in repo.git("log", "--name-only", "-1"):
            return
        time.sleep(0.1)
    raise AssertionError("the pending note was not committed in 30 s")


def test_status_says_when_no_finisher_will_commit_a_note(repo: NotesRepo) -> None:
    """A `git am` stopped longer than the finisher's 10 minutes, then `git am --abort` (HEAD
    never moved) or `--skip` of its last patch: no hook follows, and no finisher runs, but
    status said "the finisher or the next `memidx sync` commits it"."""
    config = load_config(repo.root, env={})
    repo.write(REF, TEXT)
    keep(config, REF, "Disk full", TEXT, "refs/heads/main")
    shown = repo.memidx("status").out
    assert f"(the oldest under a minute old): {NO_FINISHER}\n" in shown, shown
    assert "the finisher" not in shown


def test_status_says_it_of_a_finisher_lock_that_is_no_file(repo: NotesRepo) -> None:
    """1262d5a's look at finisher.lock made `memidx status` fail whole, exit 1, where a link
    or FIFO stood in its place (no finisher can hold it either): the pending line says so."""
    config = load_config(repo.root, env={})
    repo.write(REF, TEXT)
    keep(config, REF, "Disk full", TEXT, "refs/heads/main")
    lock = config.state_dir / FOLDER / FINISHER_LOCK
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.unlink(missing_ok=True)
    lock.symlink_to(repo.root / "nowhere")
    shown = repo.memidx("status")
    assert shown.code == 0 and f"{NO_FINISHER}\n" in shown.out, shown.out + shown.err


def test_status_says_a_pending_notes_vanished_file_is_written_again(repo: NotesRepo) -> None:
    """A pending note's file gone (a `git reset --hard` of it once staged) is written
    again from its entry by the commit that comes: status said only why it waited, and the
    person who saw the file vanish read nothing of its coming back."""
    config = load_config(repo.root, env={})
    repo.write(REF, TEXT)
    keep(config, REF, "Disk full", TEXT, "refs/heads/main")
    repo.git("add", REF)
    repo.git("reset", "-q", "--hard")  # git held it: taken by git, not the person's `rm`
    [note] = repo.memidx("status", "--json").json()["pending_notes"]
    assert note["why"] == (
        "its file is gone from the work tree (a `git reset --hard` or `git rebase --abort` "
        "took it once git held it): it is written again from its pending entry when it is "
        f"committed (`memidx forget {REF}` drops it); {NO_FINISHER}"
    )
    assert "its file is gone from the work tree" in repo.memidx("status").out
    repo.memidx("sync")
    assert (repo.root / REF).read_text() == TEXT  # as said: written again, and committed
    assert REF in repo.git("ls-tree", "-r", "--name-only", "HEAD")


def test_status_says_a_pending_note_a_stash_took_waits_for_the_pop(repo: NotesRepo) -> None:
    config = load_config(repo.root, env={})
    repo.write(REF, TEXT)
    keep(config, REF, "Disk full", TEXT, "refs/heads/main")
    repo.git("stash", "-q", "-u")
    [note] = repo.memidx("status", "--json").json()["pending_notes"]
    assert note["why"].startswith(
        "its file is in a `git stash` (`git stash -u` took it): it is committed once "
        f"`git stash pop` brings it back (`memidx forget {REF}` drops it); "
    ), note


def test_status_says_a_pending_note_whose_stash_was_dropped_was_removed_on_purpose(
    repo: NotesRepo,
) -> None:
    """`git stash -u`, then `git stash drop`: status said it would be written again, and sync
    wrote it again and committed it, a note the person had thrown away."""
    config = load_config(repo.root, env={})
    repo.write(REF, TEXT)
    keep(config, REF, "Disk full", TEXT, "refs/heads/main")
    repo.git("stash", "-q", "-u")
    repo.git("stash", "drop", "-q")
    [note] = repo.memidx("status", "--json").json()["pending_notes"]
    assert note["why"].startswith(
        "its file was removed on purpose (a `git stash` that held it was dropped): the next "
        "`memidx sync` or git hook drops it, uncommitted; "
    ), note
    synced = repo.memidx("sync")
    assert "was removed on purpose" in synced.err and "git cat-file -p" in synced.err
    assert not (repo.root / REF).exists() and REF not in repo.git("ls-tree", "-r", "HEAD")
    assert repo.memidx("status", "--json").json()["pending_notes"] == []
