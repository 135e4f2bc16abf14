"""A wedged recall server (stopped by SIGSTOP: it takes connections and never answers) and a
hook's time: the server acknowledges each hook at once, however busy, so a hook tells a wedged
one from a busy one and still recalls in its own process in time; the next hook that finds it
so replaces it, once it is provably this memory's server; and a hook left too little time
recalls nothing rather than burn the cores past its deadline. In-process hooks
(`actions.recall_for`); the wedged server is a small Python process that holds the server's
lock, names itself in `recall.pid` and listens on its socket, then is stopped."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import cast

import pytest

from memidx.agents import (
    actions,
    recall_client,
    recall_loop,
    recall_server,
    recall_times,
    recall_wedge,
)
from memidx.agents.recall import Recall, Recaller
from memidx.agents.session import Where
from memidx.config import Config
from memidx.portable import file_lock
from tests.cli.test_recall_hard import (
    PROMPT,
    REF,
    WEDGED_DEADLINE,
    copied,
    in_process_fails,
    memory,
    no_start,
    own_recalls,
)
from tests.helpers import dead_pid

__all__ = ["memory"]  # the module's embedded memory, shared with test_recall_hard's fixture

WEDGED = """\
import fcntl, os, socket, sys, time
folder, locked, named = sys.argv[1], sys.argv[2] == "locked", sys.argv[3]
lock = open(os.path.join(folder, "recall.lock"), "a")
if locked:
    fcntl.flock(lock, fcntl.LOCK_EX)
with open(os.path.join(folder, "recall.pid"), "w") as pid:
    pid.write(f"{named or os.getpid()}\\n")
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(os.path.join(folder, "recall.sock"))
server.listen(16)
print("listening", flush=True)
time.sleep(60)
"""


@pytest.fixture
def config(memory: Config, monkeypatch: pytest.MonkeyPatch) -> Iterator[Config]:
    """A memory of its own (short enough for its socket), where hooks start no server."""
    monkeypatch.setattr(recall_client, "start", no_start)
    folder = Path(tempfile.mkdtemp(prefix="mx-"))
    yield copied(memory, folder)
    shutil.rmtree(folder)


@contextmanager
def stopped_server(
    config: Config, *, locked: bool = True, named: str = ""
) -> Generator[subprocess.Popen[bytes]]:
    """A server's process, stopped once it listens: it holds the lock (unless not `locked`)
    and `recall.pid` names it (or `named`)."""
    folder = config.state_dir / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-c", WEDGED, str(folder), "locked" if locked else "free", named]
    server = subprocess.Popen(argv, stdout=subprocess.PIPE)
    try:
        assert server.stdout is not None and server.stdout.readline() == b"listening\n"
        os.kill(server.pid, signal.SIGSTOP)
        yield server
    finally:
        server.kill()
        server.wait(10)


def two_hooks(config: Config, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, float]]:
    """Two prompt hooks of two sessions, the second over SUSPECT_AFTER after the first marked
    the server suspect (its mark made older, not waited for): each block and its time, its
    own recall's aside (the model's load and search, as long as a loaded machine makes them)."""
    recalled = own_recalls(monkeypatch)
    done: list[tuple[str, float]] = []
    for n in range(2):
        # each hook a new process, as in life: the first's recall here paid the imports this
        # process then kept, no measure of what the second's would take (recall_times)
        (config.state_dir / "agents" / recall_times.TIMES).unlink(missing_ok=True)
        mark = config.state_dir / "agents" / recall_wedge.SUSPECT
        if mark.exists():  # made SUSPECT_AFTER + 1 s earlier, on time.monotonic()
            pid, wall, made = mark.read_text(encoding="utf-8").split()
            earlier = float(made) - recall_wedge.SUSPECT_AFTER - 1
            mark.write_text(f"{pid}\n{wall}\n{earlier!r}\n", encoding="utf-8")
        where = Where("claude-code", f"wedged-{n}", str(config.root))
        started = time.monotonic()  # a deadline far past ACK_WAIT: test_recall_hard's
        block = actions.recall_for(config, where, PROMPT, started + WEDGED_DEADLINE)
        done.append((block, time.monotonic() - started - sum(recalled)))
        recalled.clear()
    return done


def test_a_stopped_server_is_replaced_by_the_next_hook_that_finds_it(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that accepted and never answered kept its lock: each prompt waited for it,
    no other server could start, and no prompt recalled anything until someone killed it."""
    with stopped_server(config) as server:
        hooks = two_hooks(config, monkeypatch)
        code = server.wait(5)  # ended by the second hook

    assert code == -signal.SIGKILL
    assert all(REF in block and took < WEDGED_DEADLINE / 2 for block, took in hooks), hooks


@pytest.mark.parametrize(
    ("locked", "named"), [(False, ""), (True, "dead")], ids=["no-lock-held", "another-pid-named"]
)
def test_a_listener_not_provably_the_memorys_server_is_never_ended(
    config: Config, locked: bool, named: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with stopped_server(config, locked=locked, named=str(dead_pid()) if named else "") as server:
        hooks = two_hooks(config, monkeypatch)
        alive = server.poll() is None

    assert alive
    assert all(REF in block and took < WEDGED_DEADLINE / 2 for block, took in hooks), hooks


def test_a_hook_left_too_little_time_does_not_recall_in_its_own_process(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hook whose wait ran out recalled in its own process with milliseconds left: imports
    and model load on the cores other hooks needed, for an answer past its deadline."""
    fell_back = in_process_fails(monkeypatch)
    where = Where("claude-code", "late", str(config.root))

    with pytest.raises(TimeoutError, match="the deadline left no time to recall"):
        actions.recall_for(config, where, PROMPT, time.monotonic() + recall_times.FLOOR - 0.1)

    assert fell_back == []


def test_a_hook_waiting_for_a_starting_server_leaves_time_to_recall_itself(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hook waited for a server still loading its model until its deadline, then had no
    time left to recall in its own process."""
    left: list[float] = []
    deadline = time.monotonic() + 1.0

    class Timed:
        def __init__(self, config: Config) -> None:
            left.append(deadline - time.monotonic())

        def recall(self, prompt: str, seen: object) -> Recall:
            return Recall("recalled here", ())

    monkeypatch.setattr("memidx.agents.recall.Recaller", Timed)
    where = Where("claude-code", "starting", str(config.root))
    with file_lock(config.state_dir / "agents" / "recall.lock", wait=False) as held:
        assert held  # the server's lock: a server is starting
        block = actions.recall_for(config, where, PROMPT, deadline)

    assert block == "recalled here"
    assert recall_times.FLOOR <= left[0] < recall_times.FLOOR + 0.4, left  # it did wait


class Slow:
    """A recaller whose every answer takes 0.1 s."""

    def recall(self, prompt: str, seen: object) -> Recall:
        time.sleep(0.1)
        return Recall("", ())


def test_a_busy_server_acknowledges_each_hook_at_once() -> None:
    """Answering one hook at a time, the server heard the next only once it had answered the
    one before: a hook queued behind others and one facing a stopped server waited alike."""
    folder = Path(tempfile.mkdtemp(prefix="mx-"))
    acked: list[float] = []
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
            recall_loop.listen(server, folder / "recall.sock")
            server.settimeout(0.1)
            args = (server, cast(Recaller, Slow()), 30.0, "key", lambda: True)
            loop = threading.Thread(target=recall_loop._loop, args=args)  # pyright: ignore[reportPrivateUsage]
            loop.start()
            clients = [socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(6)]
            for client in clients:
                client.settimeout(5.0)
                started = time.monotonic()
                client.connect(str(folder / "recall.sock"))
                assert client.recv(1) == recall_server.ACK
                acked.append(time.monotonic() - started)
                client.sendall(b'{"prompt": "vmmem", "config": "key"}\n')
            for client in clients:
                assert b"block" in recall_server.read_line(client)
                client.close()
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as last:
                last.connect(str(folder / "recall.sock"))
                last.sendall(b'{"config": "another"}\n')  # the server makes way
                assert recall_server.STALE.encode() in recall_server.read_line(last)
            loop.join(5)
    finally:
        shutil.rmtree(folder)

    assert not loop.is_alive()
    assert max(acked) < recall_server.ACK_WAIT, acked  # the six answers take 0.6 s in turn
