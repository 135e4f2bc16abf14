"""A hook's trace is bounded (memidx/index/trace_trim.py's MAX_TRACE): each late notice of an
agent's hook is ~110 bytes, and an agent firing hooks all day grew `agent-hook-error.log` for
good. Past 1 MiB a line keeps the newest half, whole lines only, `memidx status`'s last failure
among them, and hooks tracing at once lose no line of that half, nor tear one."""

from __future__ import annotations

import multiprocessing
import os
import re
import time
from pathlib import Path

import pytest

from memidx.index import failures, trace_trim
from memidx.portable import lock_open

LINE = "2026-01-01T00:00:00+00:00\tclaude-code Stop\tnotice: answered 2.6 s after it began, {}\n"


def _full_trace(tmp_path: Path) -> tuple[Path, str]:
    """A hook's trace just under its bound, of late notices: (its path, its text)."""
    trace = tmp_path / "agent-hook-error.log"
    old = "".join(LINE.format(f"line {n}") for n in range(trace_trim.MAX_TRACE // 80))
    trace.write_text(old, encoding="utf-8")
    return trace, old


def test_a_trace_past_its_bound_keeps_its_newest_half_and_the_last_failure(
    tmp_path: Path,
) -> None:
    trace, old = _full_trace(tmp_path)
    assert trace.stat().st_size > trace_trim.MAX_TRACE - 100

    failures.record_failure(trace, "claude-code UserPromptSubmit", "OSError: disk full")

    size = trace.stat().st_size
    assert trace_trim.MAX_TRACE // 2 - 200 < size <= trace_trim.MAX_TRACE // 2 + 200
    lines = trace.read_text(encoding="utf-8").splitlines(keepends=True)
    assert all(line.count("\t") == 2 and line.endswith("\n") for line in lines)  # none cut
    assert "".join(lines[:-1]) == old[len(old) - len("".join(lines[:-1])) :]  # its newest
    assert lines[-1].endswith("\tclaude-code UserPromptSubmit\tOSError: disk full\n")
    found = failures.last_failure(trace)
    assert found is not None and found.message == "OSError: disk full"
    assert [p.name for p in tmp_path.iterdir()] == [trace.name]  # no draft left


def test_a_trim_that_cannot_be_written_leaves_the_trace_whole_and_appends(
    tmp_path: Path,
) -> None:
    """A full disk (here: a folder where the draft goes) fails the trim, never the line."""
    trace, old = _full_trace(tmp_path)
    (tmp_path / f".{trace.name}.trim").mkdir()

    failures.record_failure(trace, "codex Stop", "OSError: disk full")

    text = trace.read_text(encoding="utf-8")
    assert text.startswith(old) and text[len(old) :].endswith("\tcodex Stop\tOSError: disk full\n")


def test_a_trace_another_holds_is_not_trimmed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line whose turn did not come in time (the holder stopped with Ctrl-Z) is appended all
    the same, but trims nothing: the holder may be appending to the file a trim replaces."""
    trace, old = _full_trace(tmp_path)
    monkeypatch.setattr(failures, "LOCK_WAIT", 0.2)
    held = os.open(trace, os.O_RDONLY)
    try:
        assert lock_open(held, 0)
        failures.record_failure(trace, "gemini AfterAgent", "OSError: disk full")
    finally:
        os.close(held)

    text = trace.read_text(encoding="utf-8")
    assert text.startswith(old) and text[len(old) :].endswith("\tOSError: disk full\n")


def _writer(trace: Path, writer: int, lines: int, bound: int) -> None:
    trace_trim.MAX_TRACE = bound  # a small bound: trimmed many times over
    failures.LOCK_WAIT = 60.0  # the turns are what is tested, not a loaded machine's 1 s
    for n in range(lines):
        failures.record_failure(trace, f"agent{writer} Stop", f"notice: line {n} " + "x" * 40)


def test_hooks_tracing_at_once_lose_and_tear_no_line_of_what_is_kept(tmp_path: Path) -> None:
    """Four processes tracing 300 lines each past a bound of 8 KiB (trimmed ~40 times): every
    line kept is whole, and of each writer the lines kept are its newest, none missing."""
    trace, writers, lines, bound = tmp_path / "agent-hook-error.log", 4, 300, 8 * 1024
    fork = multiprocessing.get_context("fork")
    processes = [
        fork.Process(target=_writer, args=(trace, w, lines, bound)) for w in range(writers)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(120)
        assert process.exitcode == 0

    assert trace.stat().st_size <= bound
    kept: dict[str, list[int]] = {}
    for line in trace.read_text(encoding="utf-8").splitlines():
        said = re.fullmatch(r"[0-9T:+-]+\t(agent\d) Stop\tnotice: line (\d+) x{40}", line)
        assert said is not None, line  # whole
        kept.setdefault(said.group(1), []).append(int(said.group(2)))
    assert kept  # a writer that ended first may have had all its lines trimmed since
    for numbers in kept.values():  # each writer's newest lines, none missing among them
        assert numbers == list(range(numbers[0], lines)), numbers
    assert [p.name for p in tmp_path.iterdir()] == [trace.name]


def _left_draft(trace: Path) -> Path:
    """A trace of a few lines, and the draft a trim of it killed midway left beside it."""
    failures.record_failure(trace, "post-commit", "cannot sync: the index is locked")
    draft = trace.with_name(f".{trace.name}.trim")
    draft.write_text(LINE.format("kept") * 4000, encoding="utf-8")
    return draft


def test_a_draft_a_killed_trim_left_goes_at_the_next_line(tmp_path: Path) -> None:
    """It stayed for good (up to 512 KiB) where no trim came again: only a trim made it anew."""
    trace = tmp_path / "agent-hook-error.log"
    _left_draft(trace)

    failures.record_failure(trace, "codex Stop", "OSError: disk full")

    assert [p.name for p in tmp_path.iterdir()] == [trace.name]
    assert trace.read_text(encoding="utf-8").endswith("\tcodex Stop\tOSError: disk full\n")


def test_a_draft_a_killed_trim_left_goes_with_the_trace_a_sync_clears(tmp_path: Path) -> None:
    trace = tmp_path / "hook-error.log"
    _left_draft(trace)

    failures.clear_failures(trace)

    assert list(tmp_path.iterdir()) == []


def test_a_draft_is_not_dropped_while_another_holds_the_trace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The holder may be the trimmer writing it: a line whose turn did not come in time, or a
    sync that could not lock the trace, leaves it."""
    trace = tmp_path / "hook-error.log"
    draft = _left_draft(trace)
    monkeypatch.setattr(failures, "LOCK_WAIT", 0.2)
    held = os.open(trace, os.O_RDONLY)
    try:
        assert lock_open(held, 0)
        failures.record_failure(trace, "post-merge", "OSError: disk full")
        failures.clear_failures(trace)
        assert draft.exists()
    finally:
        os.close(held)


@pytest.mark.parametrize("notices", [1000, 10_000])
def test_a_failure_before_many_notices_is_still_the_last_one(tmp_path: Path, notices: int) -> None:
    """A failure followed by 64 KiB of late notices (~600 of an agent's hooks: a loaded machine,
    a /proc start of 0) was past the 64 KiB status read: it said no hook had failed. All of a
    trace is read back now, up to its bound."""
    trace = tmp_path / "agent-hook-error.log"
    failures.record_failure(trace, "claude-code UserPromptSubmit", "OSError: disk full")
    with trace.open("a", encoding="utf-8") as notes:
        notes.write("".join(LINE.format(f"line {n}") for n in range(notices)))
    assert failures.TAIL_BYTES < trace.stat().st_size < trace_trim.MAX_TRACE

    found = failures.last_failure(trace)

    assert found is not None and found.message == "OSError: disk full"


def _orphan(tmp_path: Path, age: float) -> tuple[Path, Path]:
    """A draft a killed trim left, its trace gone since (removed by a sync that could not lock
    it, or by hand), last written `age` seconds ago."""
    trace = tmp_path / "hook-error.log"
    draft = _left_draft(trace)
    trace.unlink()
    when = time.time() - age
    os.utime(draft, (when, when))
    return trace, draft


def test_a_draft_left_beside_no_trace_goes_with_the_next_sync(tmp_path: Path) -> None:
    """No line comes to its trace, so drop_draft never ran again: it stayed for good."""
    trace, draft = _orphan(tmp_path, trace_trim.LEFT_AGE + 60)

    failures.clear_failures(trace)

    assert not draft.exists()


@pytest.mark.parametrize("what", ["a live trim's", "a trace there", "a link", "a folder"])
def test_a_draft_memidx_cannot_prove_its_own_left_stays(tmp_path: Path, what: str) -> None:
    trace, draft = _orphan(tmp_path, 1 if what == "a live trim's" else trace_trim.LEFT_AGE + 60)
    if what == "a trace there":  # its next line takes it, under the trace's lock
        trace.write_text(LINE.format("kept"), encoding="utf-8")
    elif what in ("a link", "a folder"):  # never memidx's
        other = tmp_path / "theirs"
        other.write_text("the person's\n")
        draft.unlink()
        if what == "a link":
            draft.symlink_to(other)
        else:
            draft.mkdir()

    trace_trim.drop_left_draft(trace)  # what each sync's end runs for each trace

    assert draft.exists() or draft.is_symlink()
    assert (tmp_path / "theirs").exists() or what not in ("a link", "a folder")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown: root's")
def test_a_draft_of_another_owner_than_its_folder_s_stays(tmp_path: Path) -> None:
    """Another user's file of the draft's name (root's memidx in a shared folder): not
    memidx's to remove, however old."""
    trace, draft = _orphan(tmp_path, trace_trim.LEFT_AGE + 60)
    os.chown(draft, tmp_path.stat().st_uid + 4321, -1)
    when = time.time() - trace_trim.LEFT_AGE - 60
    os.utime(draft, (when, when))

    failures.clear_failures(trace)

    assert draft.exists()
