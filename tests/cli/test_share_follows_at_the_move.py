"""`memidx share` holds its `following` lock (memidx.index.following) from a HEAD move of its
own on (memidx.head_move), as remember, forget and a haystack commit do: it took it at its
start, so it held it through its wait for remember.lock and for a person's git before the
pending notes' or the haystack's commit, and through the merge's wait for the clone's git
(serialized, _quiet), with HEAD not moved: a search called an index behind for another reason
"bringing the index to it now" (never `run memidx sync`), and a person's commit whose drift
check found it waited up to 10 s for a share that waited for that very commit."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.index.following import followed_now
from memidx.memory import share as share_module
from tests.memories import diverged_clones


def test_share_holds_no_following_lock_before_its_own_commits_move_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = diverged_clones(tmp_path)
    assert two.memidx("ingest").code == 0
    config = load_config(two.root, env={})
    seen: dict[str, bool] = {}
    quiet = share_module._quiet  # pyright: ignore[reportPrivateUsage]

    def quiet_looked_at(*args: object) -> object:  # the merge's wait for the clone's git
        seen["merge's wait"] = followed_now(config)
        return quiet(*args)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(share_module, "_quiet", quiet_looked_at)

    def pending_notes() -> None:  # the pending notes' wait for remember.lock and for git
        seen["pending notes' wait"] = followed_now(config)

    done = share_module.share(config, sleep=lambda _: None, before=pending_notes)

    assert done.pushed
    assert seen == {"pending notes' wait": False, "merge's wait": False}
    assert not followed_now(config)
    head = two.git("rev-parse", "HEAD").strip()
    assert two.git("rev-parse", "HEAD^2").strip() == one.git("rev-parse", "HEAD").strip()
    from tests.cli.test_following_not_across_waits import indexed_commit

    assert indexed_commit(config) == head  # the merge is followed all the same


def test_share_s_git_merge_holds_following_as_it_moves_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A git older than 2.38 merges with `git merge` (no plumbing, no memidx.git.commit
    publish to say the move): the lock is taken as it is about to run."""
    _, two = diverged_clones(tmp_path)
    assert two.memidx("ingest").code == 0
    config = load_config(two.root, env={})
    seen: list[bool] = []
    run_git = share_module._git  # pyright: ignore[reportPrivateUsage]

    def merge_looked_at(config_: object, *args: str, **kwargs: object) -> object:
        if args[:1] == ("merge",):
            seen.append(followed_now(config))
        return run_git(config_, *args, **kwargs)  # pyright: ignore[reportArgumentType]

    def no_plumbing(*_: object) -> None:  # as with git < 2.38
        return None

    monkeypatch.setattr(share_module, "merge_upstream", no_plumbing)
    monkeypatch.setattr(share_module, "_git", merge_looked_at)

    done = share_module.share(config, sleep=lambda _: None)

    assert done.pushed
    assert seen == [True]
    assert not followed_now(config)
