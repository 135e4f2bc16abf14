"""A hook that fails where its memory cannot be written (read-only, a full disk) still leaves
its trace, in the user's state folder, which `memidx status` reads; and a filing the index
refuses says what became of the record."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from memidx.agents import runner
from memidx.config import load_config
from memidx.index import connection
from memidx.index.failures import last_failure, record_failure
from memidx.locations import user_trace_dir
from tests.cli.test_index_faults import fill_up, read_only, tmpfs
from tests.cli.test_transient_hard import indexed, stdin_of
from tests.helpers import NotesRepo, run_in_process

__all__ = ["indexed"]  # the fixture, used by name


def test_a_trace_on_a_full_disk_goes_to_the_user_state_folder_and_leaves_no_empty_file(
    tmp_path: Path,
) -> None:
    """On a full disk the trace was opened (an empty `hook-error.log`), its line lost."""
    with tmpfs(tmp_path / "small", "1m") as disk:
        trace = disk / ".memidx" / "hook-error.log"
        trace.parent.mkdir()
        fallback = tmp_path / "state" / "hook-error.log"
        filler = fill_up(disk)
        record_failure(trace, "post-commit", "could not update the index", fallback=fallback)
        left = trace.exists()
        filler.unlink()

    assert not left
    failure = last_failure(trace, fallback)
    assert failure is not None and failure.message == "could not update the index"
    assert fallback.read_text(encoding="utf-8").count("\n") == 1


def test_a_trace_line_cut_short_by_a_full_disk_is_taken_back(tmp_path: Path) -> None:
    """A line only partly written is no trace: the file is left as it was before it."""
    with tmpfs(tmp_path / "small", "1m") as disk:
        trace = disk / "hook-error.log"
        record_failure(trace, "post-commit", "the first failure")
        before = trace.read_bytes()
        filler = fill_up(disk)  # the rest of the file's page is all the room left
        record_failure(trace, "post-merge", "a failure longer than a page " * 200)
        after = trace.read_bytes()
        filler.unlink()

    assert after == before


def test_the_post_commit_hook_in_a_read_only_memory_leaves_a_trace_status_shows(
    indexed: NotesRepo, tmp_path: Path
) -> None:
    """The hook's trace sat on the read-only disk: nothing was written, and `memidx status`
    said "hook error: none"; the hook said to run `make reconcile`, which fails the same way."""
    indexed.note("b.md", "Bravo", "bravo words")
    indexed.commit()
    with read_only(indexed.root, tmp_path / "ro") as ro:
        hook = run_in_process(ro, "hook", "post-commit")
        status = run_in_process(ro, "status")
        trace = user_trace_dir(load_config(ro).root)

    assert hook.code == 0
    said = "then run `memidx reconcile --fix`"  # no Makefile here: what `make reconcile` runs
    assert "make the memory writable" in hook.out and said in hook.out, hook.out
    assert "(run `memidx reconcile --fix`)" not in hook.out, hook.out
    assert trace is not None and (trace / "hook-error.log").is_file()
    line = next(x for x in status.out.splitlines() if x.startswith("hook error:"))
    assert "post-commit" in line and "Read-only file system" in line, status.out
    assert line.count("reconcile --fix") == 1, line  # said once (no Makefile: the command)


def test_an_agent_hook_in_a_read_only_memory_leaves_its_trace_for_status(
    indexed: NotesRepo, tmp_path: Path
) -> None:
    with read_only(indexed.root, tmp_path / "ro") as ro:
        config = load_config(ro)
        runner._trace(config, "claude-code", "Stop", "the index cannot be written")  # pyright: ignore[reportPrivateUsage]
        status = run_in_process(ro, "status")

    line = next(x for x in status.out.splitlines() if x.startswith("agent hook"))
    assert "the index cannot be written" in line, status.out


def test_a_turn_filed_while_another_process_holds_the_index_says_it_was_not_filed(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It said only "the index is locked by another memidx process (...)": nothing about the
    turn, which README's filing says in every failure."""
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_MS", 200)
    holder = sqlite3.connect(indexed.root / ".memidx" / "index.sqlite", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        stdin_of(monkeypatch, '{"text": "a turn filed while the index is locked"}')
        started = time.monotonic()
        filed = indexed.memidx("file-turn")
        took = time.monotonic() - started
    finally:
        holder.rollback()
        holder.close()
    segments = indexed.root / "notes" / "haystack"

    assert took < 3
    assert filed.code == 1, filed
    assert filed.err.count("\n") == 1 and "Traceback" not in filed.err, filed.err
    assert filed.err.startswith("memidx: error: the record was not filed: "), filed.err
    assert "locked by another" in filed.err and "try again" in filed.err, filed.err
    assert not any(p.is_file() for p in segments.rglob("*.krd")) if segments.exists() else True


def test_a_turn_appended_but_not_indexed_says_it_is_kept_and_the_index_catches_up(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index failing after the append is not "not filed": the record is in the log, and
    the next filing or sync indexes it (a retry finds it, never files it twice)."""

    def full(*args: object, **kwargs: object) -> bool:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr("memidx.haystack.indexing.index_record", full)
    stdin_of(monkeypatch, '{"text": "a turn the index could not take"}')
    failed = indexed.memidx("file-turn")
    monkeypatch.undo()
    synced = indexed.memidx("sync")
    found = indexed.memidx("search", "--json", "--mode", "bm25", "could not take")

    assert failed.code == 1, failed
    assert failed.err.count("\n") == 1 and "Traceback" not in failed.err, failed.err
    assert "the record was filed in notes/haystack/" in failed.err, failed.err
    assert "not indexed" in failed.err and "memidx sync" in failed.err, failed.err
    assert "not filed" not in failed.err, failed.err
    assert synced.code == 0, synced
    assert found.json()["count"] == 1


def test_a_turn_filed_into_a_read_only_memory_says_it_was_not_filed(
    indexed: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It said only `<lock>: Read-only file system (...)`, nothing of the record."""
    with read_only(indexed.root, tmp_path / "ro") as ro:
        stdin_of(monkeypatch, '{"text": "a turn for a read-only memory"}')
        filed = run_in_process(ro, "file-turn")

    assert filed.code == 1, filed
    assert filed.err.count("\n") == 1 and "Traceback" not in filed.err, filed.err
    assert filed.err.startswith("memidx: error: the record was not filed: "), filed.err
    assert "Read-only file system" in filed.err, filed.err


def test_a_hook_failure_recorded_while_a_sync_runs_outlives_that_sync(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A post-commit hook that failed on the lock a running `memidx sync` held (its commit
    maybe not read by that sync) had its trace removed when the sync ended in step, so status
    said "hook error: none" with the index behind; a failure from before the sync goes."""
    config = load_config(indexed.root)
    trace = config.hook_error_path
    record_failure(trace, "post-commit", "could not update the index: before the sync")
    from memidx.index import open as index_open

    built = index_open.mark_index_built

    def hook_fails_meanwhile(config: object, store: object) -> None:
        record_failure(trace, "post-merge", "could not update the index: locked meanwhile")
        built(config, store)  # type: ignore[arg-type]

    monkeypatch.setattr(index_open, "mark_index_built", hook_fails_meanwhile)
    assert indexed.memidx("sync").code == 0
    kept = last_failure(trace)
    monkeypatch.setattr(index_open, "mark_index_built", built)
    assert indexed.memidx("sync").code == 0

    assert kept is not None and kept.message.endswith("locked meanwhile"), kept
    assert last_failure(trace) is None  # the next sync began after it: in step, cleared


def test_a_sync_in_step_on_a_read_only_memory_with_its_index_elsewhere_succeeds(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sync in step removes the hook traces; one from before the mount could not be
    removed (EROFS), and the sync, which had succeeded, failed on it."""
    repo.note("a.md", "Alpha", "alpha words about file locks")
    repo.commit()
    monkeypatch.setenv("MEMIDX_INDEX", str(tmp_path / "index.sqlite"))
    assert repo.memidx("ingest").code == 0
    record_failure(load_config(repo.root).hook_error_path, "post-commit", "could not update")
    with read_only(repo.root, tmp_path / "ro") as ro:
        synced = run_in_process(ro, "sync")

    assert synced.code == 0, synced
