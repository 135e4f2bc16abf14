"""`following` (memidx.index.following) tells a search that a memidx command of the clone moved
HEAD and is bringing the index to it. `memidx share` held it across its push (seconds, minutes on
a slow network) and the pending-notes finisher across its wait for remember.lock: a HEAD behind
for another reason meanwhile (a `git reset` no hook followed) was said to be followed now, never
`run memidx sync`. Now each holds it only while a step of its own moves HEAD."""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path
from subprocess import CompletedProcess

import pytest

from memidx import portable
from memidx.config import Config, load_config
from memidx.errors import GitError
from memidx.memory import pending_finisher
from memidx.memory import share as share_module
from tests.cli.test_forget import clones
from tests.helpers import NotesRepo
from tests.memories import diverged_clones


def held(config: Config) -> list[Path]:
    """The `following` lock files of the clone: one is there while a command holds it."""
    folder = config.state_dir / "following"
    return sorted(folder.glob("*.lock")) if folder.is_dir() else []


def indexed_commit(config: Config) -> str | None:
    from memidx.index.store import open_store

    store, _ = open_store(config.index_path, write=False)
    try:
        return store.get_state("indexed_commit")
    finally:
        store.conn.close()


def test_share_lets_go_of_following_across_its_push_and_the_index_is_at_the_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, two = diverged_clones(tmp_path)
    assert two.memidx("ingest").code == 0
    run_git = share_module._git  # pyright: ignore[reportPrivateUsage]
    at_push: list[tuple[list[Path], str | None, str]] = []

    def push_looked_at(config: Config, *args: str) -> CompletedProcess[str]:
        if args[0] == "push":
            head = two.git("rev-parse", "HEAD").strip()
            at_push.append((held(config), indexed_commit(config), head))
        return run_git(config, *args)

    monkeypatch.setattr(share_module, "_git", push_looked_at)

    done = two.memidx("share")

    assert done.code == 0, done.err
    [(locks, indexed, head)] = at_push
    assert locks == []  # a search during the push is told the truth
    assert indexed == head  # the merge was followed before the push, not after it


def test_the_finisher_waits_for_remember_lock_without_following(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    assert repo.memidx("ingest").code == 0
    config = load_config(repo.root, env={})
    during_wait: list[list[Path]] = []

    @contextmanager
    def remember_under_way(
        path: Path, *, wait: bool = True, timeout: float | None = None
    ) -> Generator[bool]:
        during_wait.append(held(config))
        yield False  # a `remember` holds remember.lock past the wait

    monkeypatch.setattr(portable, "file_lock", remember_under_way)

    assert not pending_finisher._finish(config, print)  # pyright: ignore[reportPrivateUsage]

    assert during_wait == [[]]


def test_the_pending_notes_share_commits_are_followed_when_its_fetch_fails(
    tmp_path: Path,
) -> None:
    """share commits the pending notes first (`before`); the index followed them only after a
    merge, so a share whose fetch failed (the network down) left the index behind them, and a
    search said no hook followed ("run `memidx sync`")."""
    _, two = clones(tmp_path)
    assert two.memidx("ingest").code == 0
    two.git("remote", "set-url", "origin", str(tmp_path / "unreachable.git"))
    config = load_config(two.root, env={})

    def pending_notes_committed() -> None:
        two.note("pending.md", "Pending", "a note remembered while git was busy")
        two.commit("memidx remember: pending")

    with pytest.raises(GitError, match="git fetch failed"):
        share_module.share(config, sleep=lambda _: None, before=pending_notes_committed)

    assert indexed_commit(config) == two.git("rev-parse", "HEAD").strip()
