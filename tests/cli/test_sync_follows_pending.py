"""`memidx sync` commits the notes a `remember` left pending, then brings the index to that
commit. It held no `following` lock meanwhile (memidx.index.following): a person's `git commit`
whose pre-commit drift check came in between was refused at once, "the index has drifted from
HEAD ... a git operation no memidx hook followed ... or a hook failed", for a drift the sync was
ending (a chaos run under load: a pending note's commit moved HEAD, and the index had not
followed 3 s later). It holds it from that commit until the index is at it, as the finisher
and the hooks do, so the check waits for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.index import sync as index_sync
from memidx.index.documents import Store
from memidx.index.following import followed_now
from memidx.memory.pending_notes import keep
from memidx.progress import ProgressBar
from tests.helpers import NotesRepo, started_memory

TEXT = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of old logs.\n"
REF = "notes/disk-full.md"


def test_sync_follows_the_pending_notes_commit_until_the_index_is_at_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo: NotesRepo = started_memory(tmp_path)
    config = load_config(repo.root, env={})
    repo.write(REF, TEXT)  # as a `remember` leaves it while git is busy
    keep(config, REF, "Disk full", TEXT, "refs/heads/main")
    real_sync = index_sync.sync
    seen: list[tuple[bool, str, str | None]] = []

    def looked_at(config_: object, store: Store, bar: ProgressBar | None = None) -> object:
        head = repo.git("rev-parse", "HEAD").strip()
        seen.append((followed_now(config), head, store.get_state("indexed_commit")))
        return real_sync(config, store, bar)

    monkeypatch.setattr(index_sync, "sync", looked_at)

    synced = repo.memidx("sync")

    assert synced.code == 0, synced.err
    [(followed, head, indexed)] = seen
    assert repo.git("log", "-1", "--format=%s", "--", REF) == "memidx remember: Disk full\n"
    assert indexed != head  # the pending note's commit moved HEAD; the index is behind it
    assert followed  # a person's commit now waits for this sync, never refused as drift
    assert not followed_now(config)  # and no lock is left once the index is at HEAD


def test_sync_follows_a_pending_notes_commit_that_ended_in_an_error_past_the_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit that moved HEAD and then failed (git's index held by a person's git past the
    wait: `committed ..., but git's index stayed locked`) counts no commit: sync let go of its
    `following` lock before it indexed, HEAD holding the note, and a person's commit whose drift
    check came then was refused."""
    from memidx.errors import GitError
    from memidx.git import commit as commit_module

    repo: NotesRepo = started_memory(tmp_path)
    config = load_config(repo.root, env={})
    repo.write(REF, TEXT)
    keep(config, REF, "Disk full", TEXT, "refs/heads/main")
    real_sync = index_sync.sync
    seen: list[tuple[bool, str, str | None]] = []

    def looked_at(config_: object, store: Store, bar: ProgressBar | None = None) -> object:
        head = repo.git("rev-parse", "HEAD").strip()
        seen.append((followed_now(config), head, store.get_state("indexed_commit")))
        return real_sync(config, store, bar)

    def held(*_: object, **__: object) -> list[str]:
        raise GitError(f"committed {REF}, but git's index stayed locked", "run `git reset`")

    monkeypatch.setattr(index_sync, "sync", looked_at)
    monkeypatch.setattr(commit_module, "follow", held)

    synced = repo.memidx("sync")

    assert synced.code == 0, synced.err
    [(followed, head, indexed)] = seen
    assert repo.git("log", "-1", "--format=%s", "--", REF) == "memidx remember: Disk full\n"
    assert indexed != head  # the commit moved HEAD, though it ended in an error
    assert followed  # was: let go, a person's commit refused as drift meanwhile
    assert not followed_now(config)


def test_a_hook_follows_from_before_it_commits_the_pending_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memidx hook` as pre-commit's memidx-sync runs it (no shim, so no `hook-<pid>.pid` mark)
    committed the pending notes, then took its `following` lock: begun after that move, the
    lock was no command following it (memidx.index.following: one begun since HEAD moved has
    moved nothing), and a person's commit whose drift check came before the hook's index was
    refused."""
    from memidx.githooks.drift_wait import following_head

    repo: NotesRepo = started_memory(tmp_path)
    config = load_config(repo.root, env={})
    repo.write(REF, TEXT)
    keep(config, REF, "Disk full", TEXT, "refs/heads/main")
    real_sync = index_sync.sync
    seen: list[tuple[bool, str, str | None]] = []

    def looked_at(config_: object, store: Store, bar: ProgressBar | None = None) -> object:
        head = repo.git("rev-parse", "HEAD").strip()
        seen.append((following_head(config), head, store.get_state("indexed_commit")))
        return real_sync(config, store, bar)

    monkeypatch.setattr(index_sync, "sync", looked_at)

    done = repo.memidx("hook", "post-commit")

    assert done.code == 0, done.err
    [(followed, head, indexed)] = seen
    assert repo.git("log", "-1", "--format=%s", "--", REF) == "memidx remember: Disk full\n"
    assert indexed != head  # the pending note's commit moved HEAD; the index is behind it
    assert followed  # was: the hook's lock, taken after that move, counted for nothing
