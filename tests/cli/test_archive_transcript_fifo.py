"""`memidx archive-transcript` of a pipe: a process substitution (`<(zcat t.gz)`) is read as
it is written, as stdin is; a named FIFO that no process writes into was waited on for ever, in
silence (open() blocks for a writer): it is waited on for a bounded time, said on stderr, then
refused in one line. An agent's hook whose transcript path names a FIFO never waits on it (it
held the hook to its deadline, which then gave up and filed nothing)."""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memidx.cli import command_input
from tests.helpers import MEMIDX_BIN, NotesRepo, Run, clean_env, run_in_process

TEXT = "user: how do I cap vmmem?\nassistant: .wslconfig caps it\n"


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "transcript.fifo"
    os.mkfifo(path)
    yield path
    # a reader still blocked in open() (the defect) is let go, not left for ever; with no
    # reader waiting, the open fails (ENXIO)
    with contextlib.suppress(OSError):
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))


def shown(repo: NotesRepo, record_id: str) -> str:
    return repo.memidx("show", "--json", record_id).json()["text"]


def test_a_process_substitution_is_archived_as_its_writer_writes_it(repo: NotesRepo) -> None:
    done = subprocess.run(
        ["bash", "-c", '"$0" archive-transcript <(sleep 1; printf %s "$1")', MEMIDX_BIN, TEXT],
        cwd=repo.root, env=clean_env(MEMIDX_ROOT=str(repo.root), MEMIDX_HOOK_EMBED="0"),
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
    assert shown(repo, done.stdout.strip()) == TEXT


def test_a_fifo_no_process_writes_into_is_refused_after_a_bounded_wait(
    repo: NotesRepo, fifo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(command_input, "FIFO_WAIT", 0.5)
    assert repo.memidx("ingest").code == 0
    answer: list[Run] = []
    reader = threading.Thread(
        target=lambda: answer.append(run_in_process(repo.root, "archive-transcript", str(fifo))),
        daemon=True,
    )

    reader.start()
    reader.join(60)

    assert answer, "archive-transcript of a FIFO no process writes into did not answer in 60 s"
    assert answer[0].code == 1, answer[0].err
    assert answer[0].err == (
        f"memidx: {fifo} is a FIFO no process writes into yet: waiting 0.5 s for one\n"
        f"memidx: error: {fifo}: no process wrote into this FIFO within 0.5 s (start the writer"
        " first, e.g. `memidx archive-transcript <(cat t.txt)`, or give a file)\n"
    )
    assert repo.memidx("search", "--json", "--kind", "transcript", "vmmem").json()["hits"] == []


def test_a_fifo_whose_writer_comes_later_is_archived_and_the_wait_said(
    repo: NotesRepo, fifo: Path
) -> None:
    archive = subprocess.Popen(
        [str(MEMIDX_BIN), "archive-transcript", str(fifo)], cwd=repo.root,
        env=clean_env(MEMIDX_ROOT=str(repo.root)), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    silent = threading.Timer(60, archive.kill)  # a memidx that says nothing waits for ever
    silent.start()
    try:
        assert archive.stderr is not None
        waiting = archive.stderr.readline()  # said before the wait, so a writer can follow it
        if waiting:
            fifo.write_text(TEXT)
        out, err = archive.communicate(timeout=120)
    finally:
        silent.cancel()
        archive.kill()

    assert waiting == f"memidx: {fifo} is a FIFO no process writes into yet: waiting 30 s for one\n"
    assert archive.returncode == 0, err
    assert shown(repo, out.strip()) == TEXT


@pytest.mark.parametrize("kind", ["folder", "missing"])
def test_archive_transcript_of_no_file_is_an_error_as_c_of_no_folder_is(
    repo: NotesRepo, kind: str
) -> None:
    """A well-formed path that names nothing to read exits 1, as `-C` naming no folder does
    (the README's exit codes): a folder or a missing file was a usage error (2)."""
    path = repo.root / "my transcripts"
    if kind == "folder":
        path.mkdir()
    said = "a folder, not a file (give a transcript file or -)" if kind == "folder" else (
        "no such file (give a transcript file or - for stdin)"
    )  # fmt: skip

    run = repo.memidx_process("archive-transcript", str(path))

    assert (run.code, run.err) == (1, f"memidx: error: {path}: {said}\n")


def test_a_hook_whose_transcript_is_a_fifo_does_not_wait_for_a_writer(
    repo: NotesRepo, fifo: Path
) -> None:
    payload = {"session_id": "s-fifo", "transcript_path": str(fifo), "cwd": str(repo.root),
               "hook_event_name": "Stop", "last_assistant_message": ""}  # fmt: skip
    assert repo.memidx("ingest").code == 0

    done = subprocess.run(
        [str(MEMIDX_BIN), "agent", "hook", "claude-code", "Stop"], input=json.dumps(payload),
        cwd=repo.root, text=True, capture_output=True, timeout=180, check=False,
        env=clean_env(MEMIDX_ROOT=str(repo.root), MEMIDX_HOOK_EMBED="0",
                      MEMIDX_AGENT_DEADLINE="30"),
    )  # fmt: skip

    assert (done.returncode, done.stdout) == (0, "")
    trace = repo.root / ".memidx" / "agent-hook-error.log"
    assert not trace.exists() or "no answer within" not in trace.read_text(), trace.read_text()


class SelectSpy:
    """`select` as command_input calls it, setting `waiting` when memidx starts its wait."""

    def __init__(self) -> None:
        self.waiting = threading.Event()

    def select(
        self, r: list[int], w: list[int], x: list[int], timeout: float
    ) -> tuple[list[int], list[int], list[int]]:
        if timeout:
            self.waiting.set()
        return select.select(r, w, x, timeout)


def test_a_writer_that_opens_the_fifo_within_the_wait_is_read_though_it_writes_after_it(
    repo: NotesRepo, fifo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer that opened the FIFO at 29.9 s and writes at 31 s (a slow `zcat`, a script
    between two steps) was refused at 30 s, its write then failing (EPIPE): it is a process
    that writes into the FIFO, and is read to its end."""
    spy = SelectSpy()
    monkeypatch.setattr(command_input, "FIFO_WAIT", 2.0)
    monkeypatch.setattr(command_input, "select", spy)
    assert repo.memidx("ingest").code == 0

    def write_late() -> None:
        if spy.waiting.wait(60):
            with contextlib.suppress(BrokenPipeError), fifo.open("w") as writer:
                time.sleep(4.0)  # opened within the wait, written after it
                writer.write(TEXT)

    writer = threading.Thread(target=write_late, daemon=True)
    writer.start()
    done = run_in_process(repo.root, "archive-transcript", str(fifo))
    writer.join(60)

    assert done.code == 0, done.err
    assert shown(repo, done.out.strip()) == TEXT


@pytest.mark.parametrize("how", ["<(true)", "/dev/stdin < <(true)"])
def test_an_empty_pipe_whose_writer_is_gone_is_not_said_to_be_waited_on(
    repo: NotesRepo, how: str
) -> None:
    """`true | memidx archive-transcript /dev/stdin`, `<(true)`: memidx said it waited 30 s for
    a writer, then at once refused the empty text: the pipe was at its end, waited on by none."""
    done = subprocess.run(
        ["bash", "-c", f'"$0" archive-transcript {how}', MEMIDX_BIN],
        cwd=repo.root, env=clean_env(MEMIDX_ROOT=str(repo.root), MEMIDX_HOOK_EMBED="0"),
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip

    assert done.returncode == 2, done.stderr
    assert "waiting" not in done.stderr, done.stderr
    assert "the record has no text" in done.stderr, done.stderr
