"""The recall server's answering threads (memidx/agents/recall_workers.py), as the loop judges
them: a thread ended mid-answer, and an answer looked at while its thread moves to the next.
In-process: the hooks are socket pairs, the answers a recaller the test holds on Events."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import cast

import pytest

from memidx.agents import recall_workers
from memidx.agents.recall import Recall

KEY = "key"


class Gated:
    """A recaller whose answers each wait for their own Event, saying when each began."""

    def __init__(self, answers: int) -> None:
        self.began = [threading.Event() for _ in range(answers)]
        self.go = [threading.Event() for _ in range(answers)]
        self.answers = 0

    def recall(self, prompt: str, seen: object) -> Recall:
        n, self.answers = self.answers, self.answers + 1
        self.began[n].set()
        self.go[n].wait(10.0)
        return Recall("", ())


def hook(workers: recall_workers.Workers) -> socket.socket:
    """A hook acknowledged and handed to the threads, its request sent; its end of it."""
    ours, theirs = socket.socketpair()
    ours.sendall(json.dumps({"prompt": "a prompt", "config": KEY}).encode() + b"\n")
    workers.waiting.put(theirs)
    return ours


def never_waited(thread: int) -> float:
    return 0.0


def never_runnable(thread: int) -> bool:
    return False


@pytest.fixture
def ended() -> Iterator[list[recall_workers.Workers]]:
    """The Workers a test made, closed and their threads ended after it."""
    made: list[recall_workers.Workers] = []
    yield made
    for workers in made:
        workers.close(stuck=True)
        for thread in workers.threads:
            thread.join(5.0)


def test_an_answer_looked_at_as_its_thread_moves_on_is_judged_by_its_own_figures(
    monkeypatch: pytest.MonkeyPatch, ended: list[recall_workers.Workers]
) -> None:
    """stalled() read when the answer began, then (apart, with no lock) the process's CPU time
    when it began: an answer that computed all along, given just then, and the next one begun,
    was judged by when the first began and the CPU time the second began at: no CPU used in
    a whole second, so stalled, and every hook was turned away to recall in its own process.
    Here the thread moves on at the worst moment: at the look's first read of the CPU time."""
    cpu = [0.0]
    recaller = Gated(2)
    looking = threading.current_thread()

    def process_time() -> float:
        if threading.current_thread() is looking and not recaller.began[1].is_set():
            cpu[0] = 1.0  # the first answer computed a whole second
            recaller.go[0].set()  # ...and is given; the second begins
            assert recaller.began[1].wait(5.0)
        return cpu[0]

    clock = SimpleNamespace(monotonic=time.monotonic, process_time=process_time)
    monkeypatch.setattr(recall_workers, "time", clock)
    monkeypatch.setattr(recall_workers, "run_queue_wait", never_waited)  # never starved
    monkeypatch.setattr(recall_workers, "runnable", never_runnable)
    workers = recall_workers.Workers(cast("recall_workers.Recaller", recaller), KEY)
    ended.append(workers)
    with hook(workers), hook(workers):
        assert recaller.began[0].wait(5.0)
        stalled = workers.stalled(time.monotonic() + 1.0)  # the first answer a second old
        recaller.go[1].set()

    assert not stalled


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_thread_ended_mid_answer_is_stalled_and_stuck(
    monkeypatch: pytest.MonkeyPatch, ended: list[recall_workers.Workers]
) -> None:
    """stalled() took a thread ended mid-answer for one whose answer was given ("the thread
    ended"): the server acknowledged hooks no thread would answer, each waited to its
    deadline, for the 30 s until the answer counted as stuck. It ends here as an answer
    raised and so did the trace of it (no memory left): nothing answers after it."""

    def failing(*args: object) -> dict[str, object]:
        raise RuntimeError("a bad index")

    def no_trace(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr(recall_workers, "answer_for", failing)
    monkeypatch.setattr(recall_workers, "record_failure", no_trace, raising=False)
    workers = recall_workers.Workers(cast("recall_workers.Recaller", Gated(1)), KEY)
    ended.append(workers)
    with hook(workers) as conn:
        conn.settimeout(5.0)
        assert conn.recv(100) == b""  # let go: no answer comes
        for thread in workers.threads:
            thread.join(5.0)
        now = time.monotonic()

    assert not any(thread.is_alive() for thread in workers.threads)
    assert (workers.stalled(now), workers.stuck(now)) == (True, True)
