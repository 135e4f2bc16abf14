"""The pending notes' finisher (memidx.memory.pending_finisher) indexed only the commits it
counted: one that moved HEAD and then failed (git's index held by a person's git past the wait,
`committed ..., but git's index stayed locked`) counts none, so it let go of its `following`
lock with the index behind a HEAD that holds the note, no hook follows a plumbing commit, and a
person's `git commit` whose drift check came next was refused, "the index has drifted from
HEAD" (as `memidx sync` did: tests/cli/test_sync_follows_pending.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.memory import pending_finisher
from tests.cli.test_following_not_across_waits import indexed_commit
from tests.pending_memory import REF, index_held_past_the_move, kept_pending


def test_the_finisher_follows_a_pending_notes_commit_that_ended_in_an_error_past_the_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, config = kept_pending(tmp_path)
    index_held_past_the_move(monkeypatch)
    said: list[str] = []

    pending_finisher._finish(config, said.append)  # pyright: ignore[reportPrivateUsage]

    head = repo.git("rev-parse", "HEAD").strip()
    assert repo.git("log", "-1", "--format=%s", "--", REF) == "memidx remember: Disk full\n"
    assert indexed_commit(config) == head, said  # was: behind, and no one to follow it
    assert repo.memidx("check", "drift").code == 0
