"""MEMIDX_MOVE_TRACE (memidx.git.move_trace): one line per move, counted from its own lock, and
never a hang on a file that is no regular file."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from memidx.git import move_trace as trace


def test_a_move_s_line_counts_from_its_own_lock_not_an_earlier_swap_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = tmp_path / "trace"
    monkeypatch.setenv("MEMIDX_MOVE_TRACE", str(written))
    trace.mark("locked")  # memidx.git.index_copy's swap, which writes no line
    time.sleep(0.2)

    trace.mark("locked")
    trace.mark("moved")
    trace.write("done")

    words = written.read_text().split()
    assert words[0] == "done"
    assert [word.split("=")[0] for word in words[1:]] == ["locked", "moved"]
    assert words[1] == "locked=0.0"  # not 200 ms after the swap's


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_nobody_reads_is_not_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    monkeypatch.setenv("MEMIDX_MOVE_TRACE", str(fifo))
    trace.mark("locked")

    writer = threading.Thread(target=trace.write, args=("done",), daemon=True)
    writer.start()
    writer.join(timeout=5)

    stuck = writer.is_alive()
    if stuck:  # let the blocked open end before the test fails
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
    assert not stuck  # the move goes on and lets its lock go
