"""The recall server's read of a hook's request (memidx/agents/recall_workers.py): the whole of
it within READ_WAIT, however it trickles in. In-process: the hook's connection and the clock
are the test's, moved by the connection's reads alone."""

from __future__ import annotations

import socket
from types import TracebackType
from typing import cast

import pytest

from memidx.agents import recall_server, recall_workers
from tests.unit.clocks import Ticks

STEP = 0.4  # seconds between the trickling hook's bytes: under each read's own timeout


class Clock(Ticks):
    """`time` for the server's modules: only the connection's reads move it."""

    def process_time(self) -> float:
        return 0.0


class Trickle:
    """A hook's connection that sends its request a byte every STEP s, its line's end after
    3 s; what the server sends it is kept."""

    def __init__(self, clock: Clock) -> None:
        self.clock, self.began, self.timeout = clock, clock.now, 0.0
        self.sent: list[bytes] = []
        self.real, self.other = socket.socketpair()  # a descriptor to poll: the hook is there

    def settimeout(self, seconds: float) -> None:
        self.timeout = seconds

    def recv(self, size: int) -> bytes:
        if self.timeout < STEP:  # the next byte comes after the read's timeout
            self.clock.now += self.timeout
            raise TimeoutError
        self.clock.now += STEP
        return b"\n" if self.clock.now - self.began > 3.0 else b"x"

    def sendall(self, data: bytes) -> None:
        self.sent.append(data)

    def fileno(self) -> int:
        return self.real.fileno()

    def __enter__(self) -> Trickle:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.real.close()
        self.other.close()


def test_a_request_trickling_in_holds_the_answering_thread_read_wait_at_most(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each read had its own 0.5 s timeout, the whole read none: a hook sending a byte every
    0.4 s held the server's answering thread for as long as it sent (the README promises
    0.5 s at most), and every hook behind it waited."""
    clock = Clock()
    monkeypatch.setattr(recall_server, "time", clock, raising=False)
    monkeypatch.setattr(recall_workers, "time", clock)
    hook = Trickle(clock)
    workers = recall_workers.Workers(cast("recall_workers.Recaller", object()), "key")
    workers.waiting.put(cast(socket.socket, hook))
    workers.close(stuck=False)
    for thread in workers.threads:
        thread.join(5.0)

    assert not any(thread.is_alive() for thread in workers.threads)
    assert clock.now - hook.began <= recall_workers.READ_WAIT
    assert hook.sent == []  # no request: nothing to answer
