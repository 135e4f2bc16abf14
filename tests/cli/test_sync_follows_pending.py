"""`memidx sync` commits the notes a `remember` left pending, then brings the index to that
commit. It held no `following` lock meanwhile (memidx.index.following): a person's `git commit`
whose pre-commit drift check came in between was refused at once, "the index has drifted from
HEAD ... a git operation no memidx hook followed ... or a hook failed", for a drift the sync was
ending (a chaos run under load: a pending note's commit moved HEAD, and the index had not
followed 3 s later). It holds it from that commit until the index is at it, as the finisher
and the hooks do, so the check waits for it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from memidx.config import Config
from memidx.index import sync as index_sync
from memidx.index.documents import Store
from memidx.index.following import followed_now
from memidx.progress import ProgressBar
from tests.helpers import NotesRepo
from tests.pending_memory import REF, index_held_past_the_move, kept_pending


def _watched_sync(
    monkeypatch: pytest.MonkeyPatch, repo: NotesRepo, config: Config, followed: Callable[[], bool]
) -> list[tuple[bool, str, str | None]]:
    """What `followed()`, HEAD and the indexed commit are as the index's sync begins, each time."""
    real_sync = index_sync.sync
    seen: list[tuple[bool, str, str | None]] = []

    def looked_at(config_: object, store: Store, bar: ProgressBar | None = None) -> object:
        head = repo.git("rev-parse", "HEAD").strip()
        seen.append((followed(), head, store.get_state("indexed_commit")))
        return real_sync(config, store, bar)

    monkeypatch.setattr(index_sync, "sync", looked_at)
    return seen


@pytest.mark.parametrize("failed", [False, True], ids=["committed", "failed-past-the-move"])
def test_sync_follows_the_pending_notes_commit_until_the_index_is_at_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failed: bool
) -> None:
    """failed: a commit that moved HEAD and then failed (git's index held by a person's git past
    the wait) counts no commit: sync let go of its `following` lock before it indexed, HEAD
    holding the note, and a person's commit whose drift check came then was refused."""
    repo, config = kept_pending(tmp_path)
    seen = _watched_sync(monkeypatch, repo, config, lambda: followed_now(config))
    if failed:
        index_held_past_the_move(monkeypatch)

    synced = repo.memidx("sync")

    assert synced.code == 0, synced.err
    [(followed, head, indexed)] = seen
    assert repo.git("log", "-1", "--format=%s", "--", REF) == "memidx remember: Disk full\n"
    assert indexed != head  # the pending note's commit moved HEAD; the index is behind it
    assert followed  # a person's commit now waits for this sync, never refused as drift
    assert not followed_now(config)  # and no lock is left once the index is at HEAD


def test_a_hook_follows_from_before_it_commits_the_pending_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memidx hook` as pre-commit's memidx-sync runs it (no shim, so no `hook-<pid>.pid` mark)
    committed the pending notes, then took its `following` lock: begun after that move, the
    lock was no command following it (memidx.index.following: one begun since HEAD moved has
    moved nothing), and a person's commit whose drift check came before the hook's index was
    refused."""
    from memidx.githooks.drift_wait import following_head

    repo, config = kept_pending(tmp_path)
    seen = _watched_sync(monkeypatch, repo, config, lambda: following_head(config))

    done = repo.memidx("hook", "post-commit")

    assert done.code == 0, done.err
    [(followed, head, indexed)] = seen
    assert repo.git("log", "-1", "--format=%s", "--", REF) == "memidx remember: Disk full\n"
    assert indexed != head  # the pending note's commit moved HEAD; the index is behind it
    assert followed  # was: the hook's lock, taken after that move, counted for nothing
