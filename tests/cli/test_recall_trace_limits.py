"""The recall server's traces of failures every prompt meets (a recall's own error, hooks past the
waiting bound) were limited per process: each server the hooks started again (a model that
never loads, an upgrade, another configuration) traced them once more. They are limited per
memory (memidx.agents.trace_limits): several processes at once trace each kind once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memidx.agents import recall_server, trace_limits
from memidx.config import Config

PROCESSES = 4
# A server's answering threads as each server process has them: a recall fails (a corrupt
# index), and the queue is full, in each process, at about the same time (a barrier: a file)
SERVER = """
import sqlite3, sys, time
from pathlib import Path
from types import SimpleNamespace
from memidx.agents.recall_workers import Workers
from memidx.config import Config

root, go = Path(sys.argv[1]), Path(sys.argv[2])
config = Config(root=root, index_path=root / ".memidx" / "index.sqlite")
workers = Workers(SimpleNamespace(config=config), "key")
while not go.exists():
    time.sleep(0.01)
workers.recall_failed(sqlite3.DatabaseError("database disk image is malformed"))
workers.trace("3 hooks waited for an answer: those after are turned away", "full")
workers.close(False)
"""


def traced(config: Config, words: str) -> list[str]:
    path = config.agent_hook_error_path
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [line for line in lines if words in line]


def test_servers_in_several_processes_trace_each_kind_once_for_the_memory(
    tmp_path: Path,
) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    config = Config(root=root, index_path=root / ".memidx" / "index.sqlite")
    go = tmp_path / "go"
    runs = [
        subprocess.Popen([sys.executable, "-c", SERVER, str(root), str(go)])
        for _ in range(PROCESSES)
    ]
    go.touch()
    assert [run.wait(timeout=120) for run in runs] == [0] * PROCESSES

    assert len(traced(config, "a recall failed: DatabaseError")) == 1
    assert len(traced(config, "3 hooks waited for an answer")) == 1
    kept = trace_limits.read_times(recall_server.server_folder(config))
    assert set(kept) == {"recall", "full"}


def test_a_trace_is_due_again_after_its_time_and_when_the_clock_was_set_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [1_000_000.0]
    monkeypatch.setattr(trace_limits.time, "time", lambda: now[0])

    assert trace_limits.due(tmp_path, "recall", 600)
    assert not trace_limits.due(tmp_path, "recall", 600)
    assert trace_limits.due(tmp_path, "full", 600)  # another kind: its own time
    now[0] += 600
    assert trace_limits.due(tmp_path, "recall", 600)
    now[0] -= 3600  # set back an hour: the time kept is from the future
    assert trace_limits.due(tmp_path, "recall", 600)


def test_a_trace_due_again_within_the_millisecond_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its time was kept rounded to the millisecond: rounded up, a look within that
    millisecond found it from the future (a clock set back) and let the trace through again
    (seen as a flaky test_a_damaged_record_of_traces_lets_the_trace_through under load)."""
    now = [1_000_000.9996]
    monkeypatch.setattr(trace_limits.time, "time", lambda: now[0])

    assert trace_limits.due(tmp_path, "recall", 600)
    now[0] += 0.0001
    assert not trace_limits.due(tmp_path, "recall", 600)


@pytest.mark.parametrize("damage", [b"recall nan\n", b"recall inf\n", b"\xff\xfe garbage", b""])
def test_a_damaged_record_of_traces_lets_the_trace_through(tmp_path: Path, damage: bytes) -> None:
    (tmp_path / trace_limits.TRACED).write_bytes(damage)

    assert trace_limits.due(tmp_path, "recall", 600)
    assert not trace_limits.due(tmp_path, "recall", 600)


def test_a_memory_whose_folder_cannot_be_written_limits_by_the_process(tmp_path: Path) -> None:
    """No record can be kept (a folder where its file goes): the process's own times decide."""
    (tmp_path / trace_limits.TRACED).mkdir()
    mine: dict[str, float] = {}

    assert trace_limits.due(tmp_path, "recall", 600, mine)
    assert not trace_limits.due(tmp_path, "recall", 600, mine)
