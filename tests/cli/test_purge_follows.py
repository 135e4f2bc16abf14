"""`memidx haystack purge` commits the blanked segments (and rebuilds unpushed commits), then
brings the index to that HEAD. It held no `following` lock meanwhile (memidx.index.following),
as forget, remember, share and the hooks do: a person's `git commit` whose drift check came in
between was refused at once as a drift no hook followed, and a search said `run memidx sync`.
It holds it from its first commit until the index is at HEAD."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memidx.config import Config, load_config
from memidx.index.following import followed_now
from memidx.memory import head_sync
from tests.helpers import NotesRepo
from tests.memories import turn_forgotten


def test_a_purge_follows_its_commits_until_the_index_is_at_them(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    turn_forgotten(repo)
    config = load_config(repo.root, env={})
    real = head_sync.after_commit
    seen: list[bool] = []

    def looked_at(config_: Config, say: Callable[[str], None] | None = None) -> None:
        seen.append(followed_now(config))
        real(config_, say)

    monkeypatch.setattr(head_sync, "after_commit", looked_at)
    before = repo.git("rev-parse", "HEAD").strip()

    purged = repo.memidx("haystack", "purge")

    assert purged.code == 0, purged.err
    assert repo.git("rev-parse", "HEAD").strip() != before  # the purge moved HEAD
    assert seen and all(seen), seen  # a person's commit meanwhile waits for the index
    assert not followed_now(config)


def test_a_purge_holds_no_following_lock_before_it_moves_head(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Taken at the purge's start, the lock was held through its waits for a person's git
    (quiet_then, up to 10 s) before any HEAD move: a search called an index behind for another
    reason "bringing the index to it now", and a commit's drift check waited for the purge,
    which waited for that commit (what memidx.head_move ended for forget and remember)."""
    from memidx.haystack import purge_torn

    turn_forgotten(repo)
    config = load_config(repo.root, env={})
    real = purge_torn.forgotten_records
    seen: list[bool] = []

    def looked_at(*args: object, **kwargs: object) -> object:  # before any HEAD move
        seen.append(followed_now(config))
        return real(*args, **kwargs)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(purge_torn, "forgotten_records", looked_at)

    purged = repo.memidx("haystack", "purge")

    assert purged.code == 0, purged.err
    assert seen == [False]
    assert not followed_now(config)
