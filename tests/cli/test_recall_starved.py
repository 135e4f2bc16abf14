"""A recall server whose answering thread is starved of a core (busy loops on its CPU, as on a
loaded CI machine) is answering, not stalled: its hooks wait for its answer; one stuck on an
answer beside the same busy loops is still said stalled. In-process, as test_recall_stall:
the server's answering thread pins itself to one CPU beside 8 busy loops pinned there."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path

import pytest

from memidx.agents import recall_client
from memidx.agents.recall import Recall
from memidx.config import Config
from memidx.portable import lock_open
from tests.cli.test_recall_stall import HERE, LONG, SERVED, Held, config, hook, served, suspected

__all__ = ["config"]  # test_recall_stall's fixture: a memory whose hooks recall at once

pytestmark = pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="pins threads to one CPU of several (Linux)",
)

LOOPS = 8  # busy loops on the starved CPU
LOOP = """\
import os, sys, time
os.sched_setaffinity(0, {int(sys.argv[1])})
end = time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    pass
"""


@contextmanager
def busy(cpu: int) -> Generator[None]:
    """LOOPS processes spinning on `cpu`, for LONG * 3 s at the most (ended with the test)."""
    argv = [sys.executable, "-c", LOOP, str(cpu), str(3 * LONG)]
    loops = [subprocess.Popen(argv) for _ in range(LOOPS)]
    try:
        time.sleep(0.2)  # each pinned and spinning
        yield
    finally:
        for loop in loops:
            loop.kill()
        for loop in loops:
            loop.wait(LONG)


class Starved(Held):
    """Held, its answering thread pinned to `cpu` as it begins an answer, and there at `nice`
    (10: beside the busy loops it gets ~0.4 % of a core, well under IDLE_CPU on any load)."""

    def __init__(self, cpu: int, each: float = 0.0, *, busy: bool = False, nice: int = 0) -> None:
        super().__init__(each, busy=busy)
        self.cpu, self.nice = cpu, nice

    def recall(self, prompt: str, seen: object) -> Recall:
        os.sched_setaffinity(0, {self.cpu})  # this thread only: the server's answering one
        if self.nice:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), self.nice)
        return super().recall(prompt, seen)


def test_a_hook_waits_for_an_answer_starved_of_a_core(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer computing on a CPU that 8 busy loops kept busy got under IDLE_CPU (5 %) of a
    core and was judged stuck after STALLED_AFTER (0.5 s): the hook gave up the warm server
    for a recall in its own process (imports and the model's load, on the same busy cores).
    Its time waiting on the run queue for a core now counts as work."""
    monkeypatch.setattr(recall_client, "ACK_WAIT", LONG / 2)  # as test_recall_stall.loaded
    cpu = min(os.sched_getaffinity(0))
    with busy(cpu), served(config, Starved(cpu, each=0.7, busy=True, nice=10)):
        block, took = hook(config, LONG)

    assert block == SERVED, took


def test_a_hook_behind_an_answer_stuck_beside_busy_loops_still_recalls_itself(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the test above must not do: an answering thread stuck (blocked, as on a lock) on a
    CPU that busy loops keep busy waits for no core, and the server still says it is stalled."""
    monkeypatch.setattr(recall_client, "ACK_WAIT", LONG / 2)
    cpu = min(os.sched_getaffinity(0))
    recaller = Starved(cpu)
    recaller.held.clear()
    with busy(cpu), served(config, recaller):
        block, took = hook(config, LONG)

    assert (block, suspected(config)) == (HERE, False)
    assert took < LONG / 2, took  # stalled, not waited for to its deadline


class Polling(Starved):
    """Starved, its answers waiting for a lock on `path` that another holds, looking again
    every few ms (memidx.portable.lock_open, SQLite's busy handler), up to LONG s."""

    def __init__(self, cpu: int, path: Path) -> None:
        super().__init__(cpu)
        self.path = path

    def recall(self, prompt: str, seen: object) -> Recall:
        os.sched_setaffinity(0, {self.cpu})
        with self.path.open("a") as handle:
            lock_open(handle.fileno(), LONG)
        return super().recall(prompt, seen)


def test_a_hook_behind_an_answer_waiting_for_a_lock_that_polls_recalls_itself(
    config: Config, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An answer waiting for a lock that a process holds and never lets go, looking again every
    LOCK_POLL (0.02 s), beside busy loops (a loaded machine): each look woke the thread, which
    waited for a core some ms, so its wait grew between any two of the server's looks, and the
    server waited for it to the hooks' deadline: they injected nothing."""
    monkeypatch.setattr(recall_client, "ACK_WAIT", LONG / 2)
    lock, cpu = tmp_path / "held.lock", min(os.sched_getaffinity(0))
    with busy(cpu), served(config, Polling(cpu, lock)), lock.open("a") as held:
        assert lock_open(held.fileno(), 0.0)
        block, took = hook(config, LONG)

    assert (block, suspected(config)) == (HERE, False)
    assert took < LONG / 2, took  # stalled, not waited for to its deadline
