"""What a transient failure leaves: everything intact, one clear line, a trace `memidx status`
shows, and nothing acknowledged lost (the leftovers of the hard transient tests)."""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import subprocess
import threading
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from memidx.agents import runner
from memidx.config import load_config
from memidx.errors import MemidxError
from memidx.githooks.shims import CHECK_FOLDER, shim
from memidx.haystack.clone_writer import clone_writer
from memidx.haystack.turn_input import make_record
from memidx.index import failures
from memidx.index.trouble_hints import READONLY_HINT
from memidx.memory import remember as remember_module
from tests.cli.test_index_faults import read_only
from tests.cli.test_transient_hard import indexed, stdin_of
from tests.helpers import NotesRepo, run_in_process

HOOK_SCRIPT = Path(__file__).resolve().parents[2] / "hooks" / "memidx-hook"

__all__ = ["indexed"]  # the fixture, used by name


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (sqlite3.DatabaseError("database disk image is malformed"), "memidx ingest"),
        (MemidxError("the chunks cannot be stored", "check the index"), "check the index"),
        (FileNotFoundError(2, "No such file or directory", "notes/haystack/x"), "memidx sync"),
    ],
    ids=["damage", "memidx-error", "os-error"],
)
def test_a_turn_appended_then_refused_by_the_index_for_any_reason_says_where_it_is_kept(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch, error: Exception, said: str
) -> None:
    """Only a busy or unavailable index said "filed in <segment>@<offset> but not indexed";
    any other error after the append said nothing of the record (damage: "the index is
    unusable"; an OSError: a traceback), so the agent filed it again or believed it lost."""

    def refuse(*args: object, **kwargs: object) -> bool:
        raise error

    monkeypatch.setattr("memidx.haystack.indexing.index_record", refuse)
    stdin_of(monkeypatch, '{"text": "a turn the index refused", "session": "s-1"}')
    failed = indexed.memidx("file-turn")
    monkeypatch.undo()
    stdin_of(monkeypatch, '{"text": "a turn the index refused", "session": "s-1"}')
    again = indexed.memidx("file-turn", "--json")

    assert failed.code == 1, failed
    assert failed.err.count("\n") == 1 and "Traceback" not in failed.err, failed.err
    assert failed.err.startswith("memidx: error: the record was filed in notes/haystack/")
    assert "but not indexed" in failed.err and "it is not lost" in failed.err, failed.err
    assert said in failed.err, failed.err
    assert again.code == 0 and again.json()["duplicate"] is True, again


def test_a_turn_stopped_by_a_file_it_cannot_write_before_its_append_says_it_was_not_filed(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An OSError before the append (the writer's lock on a read-only folder) went out as it
    came: `memidx: error: <lock>: Read-only file system`, nothing said of the record."""
    lock = indexed.root / ".memidx" / "haystack.lock"

    def read_only(*args: object) -> None:
        raise OSError(errno.EROFS, "Read-only file system", str(lock))

    monkeypatch.setattr("memidx.haystack.indexing._follow_take_over", read_only)
    stdin_of(monkeypatch, '{"text": "a turn for a read-only lock"}')
    filed = indexed.memidx("file-turn")

    assert filed.code == 1, filed
    assert filed.err == (
        "memidx: error: the record was not filed: .memidx/haystack.lock cannot be written: "
        "Read-only file system (check the permissions and the mount of its folder, then try "
        "again)\n"
    ), filed.err


# what the git hooks say first on a read-only memory: what they say to run fails there too
WRITABLE_FIRST = f"make the memory writable ({CHECK_FOLDER}), then "


def hook_error_line(root: Path) -> str:
    """`memidx status`'s hook error line of the memory at `root`."""
    status = run_in_process(root, "status")
    return next(x for x in status.out.splitlines() if x.startswith("hook error:"))


def test_a_shim_without_its_hook_script_in_a_read_only_memory_leaves_a_trace_status_shows(
    indexed: NotesRepo, tmp_path: Path
) -> None:
    """The shim of a checkout without hooks/memidx-hook (an orphan branch) wrote its trace
    in `.memidx` only: on a read-only memory it was lost, and status said "hook error: none"."""
    script = tmp_path / "post-checkout"
    script.write_text(shim("post-checkout"), encoding="utf-8")
    with read_only(indexed.root, tmp_path / "ro") as ro:
        checkout = subprocess.run(
            ["/bin/sh", str(script)], cwd=ro, capture_output=True, text=True, check=False
        )
        line = hook_error_line(ro)

    assert checkout.returncode == 0, checkout.stderr
    assert "no hooks/memidx-hook" in checkout.stderr, checkout.stderr
    assert checkout.stderr.endswith(f"({WRITABLE_FIRST}run memidx reconcile --fix)\n"), (
        checkout.stderr
    )  # no Makefile there: `make reconcile` would find no rule
    assert READONLY_HINT.startswith(CHECK_FOLDER)  # as every other command says it
    assert "post-checkout: no hooks/memidx-hook in" in line, line


def test_the_hook_script_that_cannot_start_memidx_in_a_read_only_memory_leaves_a_trace(
    indexed: NotesRepo, tmp_path: Path
) -> None:
    """hooks/memidx-hook with no Python to run memidx wrote its trace in `.memidx` only."""
    (indexed.root / "hooks").mkdir()
    shutil.copy(HOOK_SCRIPT, indexed.root / "hooks" / "memidx-hook")
    with read_only(indexed.root, tmp_path / "ro") as ro:
        hook = subprocess.run(
            ["/bin/sh", "hooks/memidx-hook", "hook", "post-commit"],
            cwd=ro,
            env={**os.environ, "MEMIDX_PYTHON": str(tmp_path / "no-python")},
            capture_output=True,
            text=True,
            check=False,
        )
        line = hook_error_line(ro)

    assert hook.returncode == 0, hook.stderr
    assert hook.stderr.endswith(f"({WRITABLE_FIRST}run make install, then make reconcile)\n")
    assert "post-commit: cannot run memidx: no Python at" in line, line


def test_an_agent_hook_that_failed_before_finding_its_memory_leaves_a_trace_status_shows(
    indexed: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hook that failed before it had its memory (bad arguments, an unknown event, input
    that is no JSON) traced into the memory in reach, with no fallback: lost when read-only."""
    with read_only(indexed.root, tmp_path / "ro") as ro:
        monkeypatch.chdir(ro)
        runner._trace(None, "claude-code", "Nope", "unknown agent or event: 'Nope'")  # pyright: ignore[reportPrivateUsage]
        status = run_in_process(ro, "status")

    line = next((x for x in status.out.splitlines() if x.startswith("agent hook")), "")
    assert "claude-code Nope: unknown agent or event" in line, status.out


def behind_with_a_new_note_and_a_turn(repo: NotesRepo) -> None:
    """`repo` with a committed note and a filed turn its index has not read."""
    repo.note("b.md", "Bravo", "bravo words")
    repo.commit()
    clone_writer(load_config(repo.root)).append(make_record("turn", "a turn not indexed"))


def test_status_of_a_read_only_memory_says_to_make_it_writable_before_what_it_says_to_run(
    indexed: NotesRepo, tmp_path: Path
) -> None:
    """It said to run `make reconcile` and `memidx sync`, which fail there as the hooks did."""
    behind_with_a_new_note_and_a_turn(indexed)
    with read_only(indexed.root, tmp_path / "ro") as ro:
        status = run_in_process(ro, "status")
        data = run_in_process(ro, "status", "--json").json()

    said = [x for x in status.out.splitlines() if "reconcile --fix" in x or "memidx sync" in x]
    assert len(said) == 3, status.out  # drift, records, behind
    for line in said:
        assert "make the memory writable, then run `" in line, line
    assert "writable:    no: the memory is read-only" in status.out, status.out
    assert data["unwritable"] == "read-only"


def test_status_of_a_memory_on_a_full_disk_says_to_free_space_before_what_it_says_to_run(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    behind_with_a_new_note_and_a_turn(indexed)

    def full(folder: Path) -> bool:
        return True

    monkeypatch.setattr("memidx.memory.status.disk_full", full)
    status = run_in_process(indexed.root, "status")
    monkeypatch.undo()
    writable = run_in_process(indexed.root, "status")

    assert "free space on its disk, then run `memidx reconcile --fix`" in status.out, status.out
    assert "writable:" not in writable.out and "(run `memidx reconcile --fix`)" in writable.out


def test_the_same_note_remembered_while_the_first_still_writes_it_is_one_note(
    indexed: NotesRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second `remember` found the first's file empty (still being written), took it for
    another note and wrote a twin, `<slug>-2.md`: the lesson twice in memory. (A new note's
    file now comes with its commit: the first is held in that commit, its file not written.)"""
    config = load_config(indexed.root)
    writing, written = threading.Event(), threading.Event()
    commit = remember_module.commit_kept
    lock = remember_module.in_turn
    waiting = threading.Event()

    def slow_commit(*args: Any, **kwargs: Any) -> Any:
        if not writing.is_set():  # the first remember only: it holds the note, not committed
            writing.set()
            assert written.wait(30)
        return commit(*args, **kwargs)

    def noted_lock(*args: Any, **kwargs: Any) -> AbstractContextManager[object]:
        if writing.is_set():
            waiting.set()  # the second remember, now at the lock the first holds
        return lock(*args, **kwargs)

    monkeypatch.setattr(remember_module, "commit_kept", slow_commit)
    monkeypatch.setattr(remember_module, "in_turn", noted_lock)
    refs: list[str] = []

    def remember_it() -> None:
        refs.append(remember_module.remember(config, "Narwhal tusks", "Narwhals grow a tusk.").ref)

    first = threading.Thread(target=remember_it)
    first.start()
    assert writing.wait(30)
    second = threading.Thread(target=remember_it)
    second.start()
    while second.is_alive() and not waiting.is_set():  # a twin made, or stopped at the lock
        second.join(0.01)
    written.set()
    first.join(30)
    second.join(30)

    assert refs == ["notes/narwhal-tusks.md"] * 2
    assert sorted(p.name for p in (indexed.root / "notes").glob("narwhal*")) == ["narwhal-tusks.md"]
    assert indexed.git("status", "--porcelain") == ""


def test_a_trace_line_taken_back_on_a_full_disk_never_takes_another_hook_s_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two hooks tracing at once on a full disk: the first made the file and wrote half its
    line; the second opened the file meanwhile; the first took its half back and removed the
    file it had made, and the second's whole line went into that removed file: said written,
    lost (or, written before the first looked, glued to the first's half)."""
    trace = tmp_path / "hook-error.log"
    torn, go_on, second_at_lock, second_writes, second_go = (threading.Event() for _ in range(5))
    write, lock = os.write, failures.lock_open

    def full_disk_write(fd: int, data: bytes | memoryview) -> int:
        name = threading.current_thread().name
        if name == "first":  # half of it fits, as on a disk that fills up
            written = write(fd, bytes(data)[: len(data) // 2])
            torn.set()
            assert go_on.wait(30)
            return written
        if name == "second":
            second_writes.set()
            assert second_go.wait(30)
        return write(fd, data)

    def noted_lock(fd: int, timeout: float | None = None) -> bool:
        if threading.current_thread().name == "second":
            second_at_lock.set()
        return lock(fd, timeout)

    monkeypatch.setattr(os, "write", full_disk_write)
    monkeypatch.setattr(failures, "lock_open", noted_lock)
    first = threading.Thread(
        target=failures.record_failure, args=(trace, "post-commit", "the first"), name="first"
    )
    second = threading.Thread(
        target=failures.record_failure, args=(trace, "post-merge", "the second"), name="second"
    )
    first.start()
    assert torn.wait(30)
    second.start()
    for _ in range(3000):  # until it stops at the lock the first holds (or, without it, writes)
        if second_at_lock.wait(0.01) or second_writes.is_set():
            break
    go_on.set()
    first.join(30)
    second_go.set()
    second.join(30)

    found = failures.last_failure(trace)
    assert found is not None and (found.hook, found.message) == ("post-merge", "the second")
    assert trace.read_text(encoding="utf-8").count("\n") == 1


def test_a_trace_line_written_while_a_sync_clears_the_trace_outlives_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hook that had opened the trace when a sync in step removed it wrote its line into
    the removed file: said written, lost, and `memidx status` said "hook error: none"."""
    trace = tmp_path / "hook-error.log"
    failures.record_failure(trace, "post-commit", "an old failure, cleared by the sync")
    marks = failures.trace_marks(trace)
    opened, cleared = threading.Event(), threading.Event()
    real_open = os.open

    def open_then_wait(path: Any, flags: int, mode: int = 0o777) -> int:
        fd = real_open(path, flags, mode)
        if threading.current_thread().name == "hook" and not opened.is_set():
            opened.set()  # the file open, its line not yet written
            assert cleared.wait(30)
        return fd

    monkeypatch.setattr(os, "open", open_then_wait)
    hook = threading.Thread(
        target=failures.record_failure, args=(trace, "post-merge", "a new failure"), name="hook"
    )
    hook.start()
    assert opened.wait(30)
    failures.clear_unchanged(marks)
    cleared.set()
    hook.join(30)

    found = failures.last_failure(trace)
    assert found is not None and found.message == "a new failure"
