"""run_queue_wait: a thread's wait for a core, from Linux's schedstat; None where unknown."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from memidx import run_queue


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc (Linux)")
def test_a_threads_wait_is_read_in_seconds() -> None:
    waited = run_queue.run_queue_wait(threading.get_native_id())

    assert waited is not None and 0.0 <= waited < 10**6, waited


def test_a_thread_not_of_this_process_or_no_proc_is_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "7").mkdir()
    (tmp_path / "7" / "schedstat").write_text("12\n", encoding="utf-8")  # one field, not two
    monkeypatch.setattr(run_queue, "PROC_TASKS", tmp_path)

    assert run_queue.run_queue_wait(7) is None
    assert run_queue.run_queue_wait(8) is None  # no such thread, or no /proc


def test_a_thread_is_runnable_by_its_state_past_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for thread, stat in {7: "7 (a) S name) R 1 2", 8: "8 (b) R 1 2", 9: "9 (c"}.items():
        (tmp_path / str(thread)).mkdir()
        (tmp_path / str(thread) / "stat").write_text(stat, encoding="utf-8")
    monkeypatch.setattr(run_queue, "PROC_TASKS", tmp_path)

    assert [run_queue.runnable(t) for t in (7, 8, 9, 10)] == [True, True, False, False]
