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


def test_the_follow_runs_before_the_calls_queued_behind_the_remember(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The follow was queued on the writing thread behind every call sent while the remember
    ran (five remembers sent at once, a `forget`, `status`'s put-right): the index stayed
    behind the HEAD it moved, its `following` lock held, until all of them had answered, and a
    person's commit meanwhile waited the drift check's 10 s, then went on unchecked. It runs
    right after the remember, before the next call."""
    repo = started_memory(tmp_path)
    config = load_config(repo.root, env={})
    repo.write(OLDER_REF, OLDER)  # as a `remember` leaves it while git is busy
    keep(config, OLDER_REF, "Disk full", OLDER, "refs/heads/main")
    real_commit, real_follow = fresh_note.commit_note, head_sync.follow_commit
    running, queued, followed = threading.Event(), threading.Event(), threading.Event()

    def commit_note(config_: object, note: PendingNote, wait: object, branch: str) -> str:
        if note.ref == REF:  # a person's git holds the clone; another call arrives meanwhile
            running.set()
            queued.wait(30)
            raise GitBusy("a git commit in this clone is still under way", "wait for it to end")
        return real_commit(config_, note, wait, branch)  # type: ignore[arg-type]

    def follow_commit(*args: Any, **kwargs: Any) -> str | None:
        why = real_follow(*args, **kwargs)
        followed.set()
        return why

    monkeypatch.setattr(fresh_note, "commit_note", commit_note)
    monkeypatch.setattr(head_sync, "follow_commit", follow_commit)
    monkeypatch.setattr(remember_module, "start_finisher", _no_finisher)
    workers = Workers(config)
    workers.hand_over.delay = 3600.0
    workers.warming.result()

    def next_call() -> bool:  # the call sent while the remember ran: has the index followed?
        return followed.is_set()

    async def calls() -> bool:
        note = {"title": "Gradle heap", "body": "The Gradle daemon needs two gigabytes of heap."}
        remember = asyncio.ensure_future(build_server(workers).call_tool("remember", note))
        await asyncio.to_thread(running.wait, 30)
        behind = asyncio.ensure_future(workers.write("next", next_call))
        await asyncio.sleep(0.2)  # submitted: queued behind the remember
        queued.set()
        await asyncio.wait_for(remember, 30.0)
        return await asyncio.wait_for(behind, 30.0)

    try:
        assert asyncio.run(calls()), "the next call ran before the index followed"
    finally:
        queued.set()
        workers.close()
    assert followed.is_set()
    assert not following_head(config)
    assert repo.memidx("check", "drift").code == 0
