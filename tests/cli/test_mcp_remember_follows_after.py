"""An MCP `remember` has an answer time (server.REMEMBER_WITHIN), and its waits for git are cut
to it; the index's follow of the HEAD that older pending notes it committed moved (its own left
pending) was not: a large index's sync ran in the answer's time, whatever was left of it. It
runs on the writing thread once the answer is sent, the `following` lock held from the move
until it ends, so a person's commit begun meanwhile waits for it (not refused as drift)."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from memidx.config import load_config
from memidx.errors import GitBusy
from memidx.githooks.drift_wait import following_head
from memidx.mcp.serve import Workers
from memidx.mcp.server import REMEMBER_WITHIN, build_server
from memidx.memory import fresh_note, head_sync
from memidx.memory import remember as remember_module
from memidx.memory.pending_notes import PendingNote, keep
from tests.helpers import started_memory

OLDER = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of old logs.\n"
OLDER_REF = "notes/disk-full.md"
REF = "notes/gradle-heap.md"


def _no_finisher(*_: object) -> None:
    """No finisher at work beside the test (memidx.memory.pending_finisher)."""


def test_the_follow_of_older_notes_runs_after_the_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = started_memory(tmp_path)
    config = load_config(repo.root, env={})
    repo.write(OLDER_REF, OLDER)  # as a `remember` leaves it while git is busy
    keep(config, OLDER_REF, "Disk full", OLDER, "refs/heads/main")
    real_commit, real_follow = fresh_note.commit_note, head_sync.follow_commit
    release, followed = threading.Event(), threading.Event()

    def commit_note(config_: object, note: PendingNote, wait: object, branch: str) -> str:
        if note.ref == REF:  # a person's git holds the clone past the answer time
            raise GitBusy("a git commit in this clone is still under way", "wait for it to end")
        return real_commit(config_, note, wait, branch)  # type: ignore[arg-type]

    def follow_commit(*args: Any, **kwargs: Any) -> str | None:  # a large index's sync
        release.wait(30)
        why = real_follow(*args, **kwargs)
        followed.set()
        return why

    monkeypatch.setattr(fresh_note, "commit_note", commit_note)
    monkeypatch.setattr(head_sync, "follow_commit", follow_commit)
    monkeypatch.setattr(remember_module, "start_finisher", _no_finisher)
    workers = Workers(config)
    workers.hand_over.delay = 3600.0
    workers.warming.result()

    async def call() -> tuple[float, Any]:
        started = time.monotonic()
        note = {"title": "Gradle heap", "body": "The Gradle daemon needs two gigabytes of heap."}
        done = await asyncio.wait_for(build_server(workers).call_tool("remember", note), 20.0)
        return time.monotonic() - started, done

    try:
        answer, result = asyncio.run(call())  # was: TimeoutError, the answer behind the follow
        assert not release.is_set()  # answered while the follow still waited
        assert following_head(config)  # a person's drift check meanwhile waits for it
    finally:
        release.set()
        followed.wait(30)
        workers.close()
    assert result.structured_content["committed"] is False, result.structured_content
    assert answer < REMEMBER_WITHIN + 10.0, answer  # its own waits, cut to the answer time
    assert repo.git("log", "-1", "--format=%s") == "memidx remember: Disk full\n"
    assert not following_head(config)  # let go once the index followed
    assert repo.memidx("check", "drift").code == 0
