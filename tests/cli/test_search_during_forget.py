"""A search while a forget of this clone has moved HEAD and not yet brought the index to it:
it said "the index is at X but HEAD is Y (a git operation no memidx hook followed ...): run
`memidx sync`" (4 of 14 forgets with searches beside them), which was false: the forget was
about to bring the index along."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from memidx.config import Config
from memidx.memory import head_sync
from tests.cli.test_share_in_the_way import behind
from tests.helpers import NotesRepo


def test_a_search_in_the_midst_of_a_forget_claims_no_drift(
    repo: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.note("keep.md", "Zebra stripes", "zebra stripes are striking")
    gone = repo.note("gone.md", "Zebra manes", "zebra manes stand up")
    repo.commit("notes")
    assert repo.memidx("ingest").code == 0
    follow = head_sync.follow_commit
    said: list[str] = []

    def searched_first(config: Config, say: Callable[[str], None] | None = None) -> str | None:
        said.append(repo.memidx("search", "--mode", "bm25", "zebra").err)  # HEAD moved
        return follow(config, say)

    monkeypatch.setattr(head_sync, "follow_commit", searched_first)
    done = repo.memidx("forget", gone)

    assert done.code == 0, done.err
    (err,) = said
    assert "memidx sync" not in err and "no memidx hook followed" not in err, err
    assert "a memidx command of this clone moved HEAD and is bringing the index to it" in err
    assert not list((repo.root / ".memidx" / "following").iterdir())  # let go at its end


def test_a_search_after_a_commit_no_hook_followed_says_to_sync(repo: NotesRepo) -> None:
    repo.note("keep.md", "Zebra stripes", "zebra stripes are striking")
    repo.commit("notes")
    assert repo.memidx("ingest").code == 0
    repo.note("new.md", "Zebra manes", "zebra manes stand up")
    repo.commit("no hook runs")

    done = repo.memidx("search", "--mode", "bm25", "zebra")

    assert "no memidx hook followed" in done.err and "run `memidx sync`" in done.err, done.err


def test_a_search_in_the_midst_of_a_share_claims_no_drift(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """share's merge moved HEAD to what the remote brought; its follow had not run yet."""
    two = behind(tmp_path, diverged=False)
    assert two.memidx("ingest").code == 0
    follow = head_sync.after_commit
    said: list[str] = []

    def searched_first(config: Config, say: Callable[[str], None] | None = None) -> None:
        said.append(two.memidx("search", "--mode", "bm25", "machine").err)
        follow(config, say)

    monkeypatch.setattr(head_sync, "after_commit", searched_first)
    done = two.memidx("share")

    assert done.code == 0, done.err
    assert any("is bringing the index to it now" in err for err in said), said
    assert not any("memidx sync" in err for err in said), said
