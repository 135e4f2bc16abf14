"""A `remember` whose note a person edits between its write and its commit (a git of theirs held
the clone, so the note was written for them to see and committed on a second try) commits
nothing of theirs: the file is theirs now, left as they made it, its pending entry dropped, and
the remember fails saying so ("changed before its commit"), exit 1. Behind an older pending note
it committed first, the index is brought to that HEAD before the error (no hook follows a
plumbing commit: a person's next commit was refused as drift)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import GitBusy
from memidx.memory import fresh_note
from memidx.memory import remember as remember_module
from memidx.memory.pending_mark import FOLDER, any_pending, entry_files
from memidx.memory.pending_notes import HOOK_CAME, PendingNote, keep
from tests.helpers import NotesRepo, started_memory

OLDER = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of old logs.\n"
OLDER_REF = "notes/disk-full.md"
REF = "notes/gradle-heap.md"
BODY = "The Gradle daemon needs two gigabytes of heap on this machine.\n"
EDITED = "# Gradle heap\n\nThe person's own words: four gigabytes, not two.\n"


def _no_finisher(*_: object) -> None:
    """No finisher at work beside the test (memidx.memory.pending_finisher)."""


def _busy_for(repo: NotesRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every commit of the remembered note finds a person's git holding the clone (and that
    git's post-* hook came meanwhile); an older note's commit goes through."""
    real = fresh_note.commit_note
    mark = repo.root / ".memidx" / FOLDER / HOOK_CAME

    def commit_note(config: object, note: PendingNote, wait: object, branch: str) -> str:
        if note.ref != REF:
            return real(config, note, wait, branch)  # type: ignore[arg-type]
        mark.parent.mkdir(parents=True, exist_ok=True)
        mark.touch()
        raise GitBusy("a git commit in this clone is still under way", "wait for it to end")

    monkeypatch.setattr(fresh_note, "commit_note", commit_note)
    monkeypatch.setattr(remember_module, "start_finisher", _no_finisher)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BODY.encode())))


def _assert_left_to_the_person(repo: NotesRepo, code: int, err: str) -> None:
    assert code == 1, err
    assert f"{REF} changed before its commit" in err and "Traceback" not in err, err
    assert (repo.root / REF).read_text() == EDITED  # the person's edit, as they left it
    assert repo.git("ls-tree", "HEAD", "--", REF) == ""  # nothing of theirs committed
    assert not any_pending(load_config(repo.root, env={}))  # never committed later either


def test_a_note_edited_before_its_commit_is_left_to_the_person(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = started_memory(tmp_path)
    _busy_for(repo, monkeypatch)
    real = fresh_note.commit_pending

    def edited_first(*args: object, **kwargs: object) -> object:
        (repo.root / REF).write_text(EDITED)  # the note appeared: the person edits it
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(fresh_note, "commit_pending", edited_first)

    done = repo.memidx("remember", "--title", "Gradle heap", "--json")

    _assert_left_to_the_person(repo, done.code, done.err)


def test_a_note_edited_before_its_retry_after_a_hook_is_not_said_pending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Edited while the remember left it pending for the retry after a post-* hook
    (pending_notes.after_a_hook), whose commit_pending found it changed and dropped its entry:
    the remember answered it pending ("written but not committed yet ... do not remember it
    again", exit 0), a note no one would ever commit."""
    repo = started_memory(tmp_path)
    config = load_config(repo.root, env={})
    repo.write(OLDER_REF, OLDER)  # as a `remember` leaves it while git is busy
    keep(config, OLDER_REF, "Disk full", OLDER, "refs/heads/main")
    _busy_for(repo, monkeypatch)
    real = remember_module.after_a_hook

    def edited_first(*args: object, **kwargs: object) -> object:
        (repo.root / REF).write_text(EDITED)  # the note appeared: the person edits it
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(remember_module, "after_a_hook", edited_first)

    done = repo.memidx("remember", "--title", "Gradle heap", "--json")

    assert done.out == "" or json.loads(done.out)["commit"] is not None, done.out
    _assert_left_to_the_person(repo, done.code, done.err)
    assert repo.git("log", "-1", "--format=%s") == "memidx remember: Disk full\n"
    assert repo.memidx("check", "drift").code == 0  # the older note's HEAD: followed


def test_a_note_a_hook_dropped_while_the_retry_waited_is_not_said_pending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The retry after a hook (pending_notes.after_a_hook) finds remember.lock held past its
    wait by that hook's own sync, which found the note edited and dropped its entry (the
    hook's warning in the person's terminal): the retry came back with nothing, and the
    remember answered the note pending ("written but not committed yet ... do not remember it
    again", exit 0), a note no one would ever commit."""
    from memidx.memory.pending_notes import commit_pending

    repo = started_memory(tmp_path)
    config = load_config(repo.root, env={})
    _busy_for(repo, monkeypatch)
    hook_said: list[str] = []

    def held_by_the_hook(*_: object, **__: object) -> None:
        (repo.root / REF).write_text(EDITED)  # the note appeared: the person edits it
        commit_pending(config, 0.0, hook_said.append)  # the hook's sync, holding the lock
        # remember.lock held past HOOK_WAIT: no retry

    monkeypatch.setattr(remember_module, "after_a_hook", held_by_the_hook)

    done = repo.memidx("remember", "--title", "Gradle heap", "--json")

    assert any(f"{REF} changed" in line for line in hook_said), hook_said
    assert done.out == "" or json.loads(done.out)["commit"] is not None, done.out
    _assert_left_to_the_person(repo, done.code, done.err)


def test_a_note_a_hook_committed_on_its_branch_left_meanwhile_is_not_said_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its entry gone after remember.lock was let go, but because a sync committed it on its
    branch, which a person's `git switch` left: not "changed before its commit" (exit 1, and
    an agent remembers it again, a twin on that branch)."""
    repo = started_memory(tmp_path)
    config = load_config(repo.root, env={})
    _busy_for(repo, monkeypatch)

    def committed_then_switched(*_: object, **__: object) -> None:
        repo.git("add", "--", REF)
        repo.git("commit", "-q", "-m", "memidx remember: Gradle heap")  # the hook's sync
        for entry in entry_files(config):  # as commit_pending does once in
            entry.unlink()
        repo.git("switch", "-q", "-c", "elsewhere", "HEAD~1")  # the person's switch

    monkeypatch.setattr(remember_module, "after_a_hook", committed_then_switched)

    done = repo.memidx("remember", "--title", "Gradle heap", "--json")

    assert done.code == 0, done.err
    assert "changed before its commit" not in done.err, done.err
    assert repo.git("log", "-1", "--format=%s", "main") == "memidx remember: Gradle heap\n"


def test_a_note_a_hook_committed_on_its_branch_left_meanwhile_is_answered_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its entry gone after remember.lock was let go because a sync committed it on its
    branch, which a person's `git switch` then left: committed, with that commit, not answered
    pending (`committed: false`, "do not remember it again", a finisher started for a note
    no entry names and no one will ever commit)."""
    repo = started_memory(tmp_path)
    config = load_config(repo.root, env={})
    _busy_for(repo, monkeypatch)

    def committed_then_switched(*_: object, **__: object) -> None:
        repo.git("add", "--", REF)
        repo.git("commit", "-q", "-m", "memidx remember: Gradle heap")  # the hook's sync
        for entry in entry_files(config):  # as commit_pending does once in
            entry.unlink()
        repo.git("switch", "-q", "-c", "elsewhere", "HEAD~1")  # the person's switch

    monkeypatch.setattr(remember_module, "after_a_hook", committed_then_switched)

    done = repo.memidx("remember", "--title", "Gradle heap", "--json")

    assert done.code == 0, done.err
    answer = json.loads(done.out)
    assert answer["commit"] == repo.git("rev-parse", "main").strip(), done.out
    assert answer["committed"] is True and answer["pending"] is None, done.out
    assert "not committed yet" not in done.err, done.err
