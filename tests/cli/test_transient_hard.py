"""Trouble that passes, met for real: a lock another process holds and never lets go, a
read-only memory, a full disk. Each fails the command in one line that names the file, bounded
in time, and loses nothing; the next run carries on."""

from __future__ import annotations

import contextlib
import fcntl
import io
import time
from collections.abc import Generator
from pathlib import Path

import pytest

from memidx.index import open as index_open
from tests.helpers import NotesRepo


@contextlib.contextmanager
def held(lock: Path) -> Generator[None]:
    """`lock` held as another process holds it (an open file of its own: flock locks belong to
    an open file, so this process's memidx waits for it like any other)."""
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def stdin_of(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8"))))


@pytest.fixture
def indexed(repo: NotesRepo) -> NotesRepo:
    repo.note("a.md", "Alpha", "alpha words about file locks")
    repo.commit()
    assert repo.memidx("ingest").code == 0
    return repo


def test_a_creation_lock_never_let_go_fails_each_writer_in_one_line_and_loses_nothing(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ingest stopped with Ctrl-Z (or hung) holds `index.sqlite.lock`: the post-commit hook,
    and the `git commit` that ran it, `sync` and `file-turn` waited for it for ever."""
    monkeypatch.setattr(index_open, "LOCK_WAIT", 0.3, raising=False)
    indexed.note("b.md", "Bravo", "bravo words committed while the lock is held")
    indexed.commit()
    lock = indexed.root / ".memidx" / "index.sqlite.lock"
    segments = indexed.root / "notes" / "haystack"
    with held(lock):
        started = time.monotonic()
        hook = indexed.memidx("hook", "post-commit")
        synced = indexed.memidx("sync")
        stdin_of(monkeypatch, '{"text": "a turn filed while the lock is held"}')
        filed = indexed.memidx("file-turn")
        took = time.monotonic() - started

    assert took < 5
    assert hook.code == 0
    trace = (indexed.root / ".memidx" / "hook-error.log").read_text()
    assert str(lock) in trace and "held" in trace, trace
    for run in (synced, filed):
        assert run.code == 1, run
        assert run.err.count("\n") == 1 and "Traceback" not in run.err, run.err
        assert str(lock) in run.err and "nothing was written" in run.err, run.err
    assert not any(p.is_file() for p in segments.rglob("*")) if segments.exists() else True

    assert indexed.memidx("sync").code == 0  # once it is let go, the next writer carries on
    found = indexed.memidx("search", "--json", "--mode", "bm25", "bravo")
    assert [h["ref"] for h in found.json()["hits"]] == ["notes/b.md"]
    assert indexed.memidx("status").code == 0
