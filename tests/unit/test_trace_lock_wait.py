"""A hook's trace waits a bounded time for the trace's lock: a process that never lets go
(stopped with Ctrl-Z between its lock and its write, hung on a slow disk) must not hang the
git operation or the agent hook that records a failure, nor the sync that clears the trace."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Generator
from contextlib import contextmanager
from pathlib import Path

import pytest

from memidx.index import failures
from memidx.portable import lock_open


@contextmanager
def held(path: Path) -> Generator[None]:
    """The trace's lock held by another open file, as another process's would be."""
    fd = os.open(path, os.O_RDONLY)
    try:
        assert lock_open(fd)
        yield
    finally:
        os.close(fd)


def finishes(work: Callable[[], None], within: float) -> bool:
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(within)
    return not thread.is_alive()


@pytest.fixture
def trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(failures, "LOCK_WAIT", 0.05, raising=False)
    path = tmp_path / "hook-error.log"
    failures.record_failure(path, "post-commit", "the first failure")
    return path


def test_a_failure_is_recorded_while_another_never_lets_go_of_the_trace(trace: Path) -> None:
    with held(trace):
        recorded = finishes(lambda: failures.record_failure(trace, "post-merge", "stuck"), 3)
    assert recorded, "record_failure waited for the lock with no end"
    found = failures.last_failure(trace)
    assert found is not None and found.message == "stuck"


def test_a_sync_clearing_the_trace_neither_hangs_nor_clears_what_it_could_not_lock(
    trace: Path,
) -> None:
    marks = failures.trace_marks(trace)
    with held(trace):
        cleared = finishes(lambda: failures.clear_unchanged(marks), 3)
    assert cleared, "clear_unchanged waited for the lock with no end"
    assert trace.exists()  # not taken: left for the next sync, never removed under a writer
