"""The recall server's suspect mark (memidx/agents/recall_wedge.py) against a server that
comes back: a hook ends a server only when it failed to acknowledge twice with no
acknowledgement in between. In-process: the server's answers are given, its checks (pid file,
lock) pass, and the kill is recorded, not sent; the clocks (the wall clock and
time.monotonic()) are the test's, moved by it alone."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memidx.agents import actions, recall_client, recall_server, recall_wedge
from memidx.agents.recall import Recall
from memidx.config import Config
from tests.unit.clocks import Clock

PID = 4242  # never signalled: the kill is recorded
NO_ACK: dict[str, object] = {"error": recall_server.NO_ACK, "pid": PID}
ANSWERED: dict[str, object] = {"block": "from the server", "keys": []}


class Here:
    """The hook's own recall, at once."""

    def __init__(self, config: Config) -> None:
        pass

    def recall(self, prompt: str, seen: object) -> Recall:
        return Recall("", ())


def no_start(config: Config) -> None:
    """What recall_client.start does here: nothing."""


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    given = Clock()
    monkeypatch.setattr(recall_wedge, "time", given)
    monkeypatch.setattr(recall_client, "time", given)
    return given


class Given:
    """recall_client.ask_waiting, answering `answer`, heard from now (as ask() says of each
    answer but NO_ACK, on its clock)."""

    def __init__(self, answer: dict[str, object]) -> None:
        self.answer = answer

    def __call__(self, *args: object, **kwargs: object) -> dict[str, object]:
        if self.answer.get("error") == recall_server.NO_ACK:
            return self.answer
        return {**self.answer, recall_server.HEARD: recall_client.time.monotonic()}


@pytest.fixture
def killed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The pids hooks ended; the server named in recall.pid holds its lock."""
    ended: list[int] = []
    monkeypatch.setattr("memidx.portable.kill", ended.append)

    def held(config: Config) -> bool:  # the server's lock, until it is ended
        return not ended

    monkeypatch.setattr(recall_wedge, "starting", held)
    monkeypatch.setattr(recall_client, "start", no_start)
    monkeypatch.setattr("memidx.agents.recall.Recaller", Here)
    yield ended


def hooks(
    config: Config, answers: list[dict[str, object]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One prompt hook per answer, each over SUSPECT_AFTER after the one before (on the
    test's clock, not waited for)."""
    folder = config.state_dir / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "recall.pid").write_text(f"{PID}\n", encoding="utf-8")
    for answer in answers:
        recall_wedge.time.sleep(recall_wedge.SUSPECT_AFTER + 1)
        monkeypatch.setattr(recall_client, "ask_waiting", Given(answer))
        hook(config)


def hook(config: Config) -> None:
    actions._recall(config, "a prompt", [], time.monotonic() + 1.5)  # pyright: ignore[reportPrivateUsage]


@pytest.fixture
def config(tmp_path: Path, clock: Clock) -> Config:
    return Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")


def test_a_server_not_acknowledging_twice_is_ended(
    config: Config, killed: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the next test leaves out, to show what it rules out: two stalls end it."""
    hooks(config, [NO_ACK, NO_ACK], monkeypatch)

    assert killed == [PID]


def test_a_server_that_acknowledged_since_it_was_marked_is_not_ended(
    config: Config, killed: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One stall marked the server suspect; it then acknowledged and answered (a wedged server
    never does); a second stall up to two minutes after the first ended it all the same, and
    the answers it owed the hooks queued behind it with it. Two stalls of a machine under load
    are no proof that a server is not coming back."""
    hooks(config, [NO_ACK, ANSWERED, NO_ACK], monkeypatch)

    assert killed == []


class HeardBefore:
    """recall_client.ask_waiting for a hook the server acknowledged before it stopped: while
    it waits, `meanwhile` runs (another hook's whole recall), then it is let go, no answer."""

    def __init__(self, meanwhile: Callable[[], object]) -> None:
        self.meanwhile = meanwhile

    def __call__(self, *args: object, **kwargs: object) -> dict[str, object]:
        heard = recall_client.time.monotonic()  # the acknowledgement, before the server stopped
        self.meanwhile()
        return {"error": recall_server.NO_ANSWER, recall_server.HEARD: heard}


def test_a_hook_heard_before_the_server_stopped_leaves_the_mark_made_since(
    config: Config, killed: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hook A was acknowledged, the server then stopped, hook B found it so and marked it
    suspect; A, let go with no answer after that, took its acknowledgement for the server
    having come back and cleared B's mark: the next hook only marked the server again, and a
    wedged server was replaced one hook later than it should have been."""
    hooks(config, [], monkeypatch)  # recall.pid names the server

    def hook_b() -> None:
        monkeypatch.setattr(recall_client, "ask_waiting", Given(NO_ACK))
        actions._recall(config, "b", [], time.monotonic() + 1.5)  # pyright: ignore[reportPrivateUsage]

    monkeypatch.setattr(recall_client, "ask_waiting", HeardBefore(hook_b))
    actions._recall(config, "a", [], time.monotonic() + 1.5)  # pyright: ignore[reportPrivateUsage]
    hooks(config, [NO_ACK], monkeypatch)  # hook C, over SUSPECT_AFTER after B

    assert killed == [PID]


class Served:
    """recall_client.ask_waiting as it asks: its own ask() of a server that acknowledges at
    once and answers (a thread on the memory's socket, for one connection)."""

    def __init__(self, config: Config) -> None:
        self.config = config

    def __call__(self, config: Config, request: dict[str, object], *args: float) -> object:
        path = recall_server.socket_path(config)
        assert path is not None
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
            listener.bind(str(path))
            listener.listen(1)
            server = threading.Thread(target=answer_once, args=(listener,))
            server.start()
            try:
                return recall_client.ask(config, request, 1.0)
            finally:
                server.join(5)
                path.unlink()


def answer_once(listener: socket.socket) -> None:
    conn, _ = listener.accept()
    with conn:
        conn.sendall(recall_server.ACK)
        recall_server.read_line(conn)
        conn.sendall(json.dumps(ANSWERED).encode("utf-8") + b"\n")


def test_a_server_heard_from_after_the_wall_clock_was_set_back_is_not_ended(
    config: Config, killed: list[int], clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mark's time and when the server was heard from were the wall clock's: set back 5 s
    (NTP) after the mark, the server's answer seemed to come before it and left the mark, and
    the next stall ended a server that had come back."""
    hooks(config, [NO_ACK], monkeypatch)
    clock.passes(1.0, stepped=-5.0)
    monkeypatch.setattr(recall_client, "ask_waiting", Served(config))
    hook(config)  # answered: ask() says when it heard the server
    clock.passes(recall_wedge.SUSPECT_AFTER + 5)
    monkeypatch.setattr(recall_client, "ask_waiting", Given(NO_ACK))
    hook(config)

    assert killed == []


@pytest.mark.parametrize("lines", [[f"{PID}", "{wall}"], [f"{PID}"]], ids=["time", "pid-only"])
def test_an_older_memidx_s_mark_still_counts(
    config: Config, killed: list[int], clock: Clock, monkeypatch: pytest.MonkeyPatch,
    lines: list[str],
) -> None:  # fmt: skip
    """A mark an older memidx wrote (its wall clock's time, or its pid alone) 2 s ago is a
    first sign still: the next stall ends the server."""
    hooks(config, [], monkeypatch)
    mark = config.state_dir / "agents" / recall_wedge.SUSPECT
    made = clock.wall - 2.0
    mark.write_text("\n".join(lines).format(wall=made) + "\n", encoding="utf-8")
    os.utime(mark, (made, made))
    monkeypatch.setattr(recall_client, "ask_waiting", Given(NO_ACK))
    hook(config)

    assert killed == [PID]


@pytest.mark.parametrize("read", [1, 2], ids=["before-it-is-taken", "as-it-is-taken"])
def test_an_answered_hook_removes_only_the_mark_it_read(
    config: Config, killed: list[int], clock: Clock, monkeypatch: pytest.MonkeyPatch,
    read: int,
) -> None:  # fmt: skip
    """Hook A, answered, read a mark made before it heard the server; meanwhile hook B,
    answered too, removed it and hook C, not acknowledged, marked the server anew; A then
    removed C's mark, and the stall after C's only marked the server again."""
    hooks(config, [NO_ACK], monkeypatch)
    mark = config.state_dir / "agents" / recall_wedge.SUSPECT
    marked, reads = recall_wedge._marked, [0]  # pyright: ignore[reportPrivateUsage]

    def b_and_c_meanwhile(path: Path) -> tuple[int | None, float | None]:
        found = marked(path)
        reads[0] += 1
        if reads[0] == read:
            mark.unlink(missing_ok=True)  # B
            clock.passes(0.5)
            recall_wedge.found_wedged(config, PID)  # C
        return found

    monkeypatch.setattr(recall_wedge, "_marked", b_and_c_meanwhile)
    clock.passes(0.5)
    recall_wedge.acknowledged(config, clock.monotonic())  # A, heard before C marked
    monkeypatch.setattr(recall_wedge, "_marked", marked)
    hooks(config, [NO_ACK], monkeypatch)

    assert killed == [PID]


def test_a_starting_server_removes_an_earlier_server_s_mark(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mark's time is time.monotonic()'s, which starts again at each boot: one left by a
    server of an earlier boot could have seemed a few seconds old to a new server given its
    pid. The server that starts removes it, before any hook can find it wedged."""
    mark = config.state_dir / "agents" / recall_wedge.SUSPECT
    mark.parent.mkdir(parents=True)
    mark.write_text(f"{os.getpid()}\n0.0\n{time.monotonic() - 2.0!r}\n", encoding="utf-8")
    # one a hook took aside to look at (acknowledged), cut off at its deadline before it was
    # put back or removed: it stayed for good
    taken = mark.with_name(f"{recall_wedge.SUSPECT}.{os.getpid() + 1}")
    taken.write_text(mark.read_text(encoding="utf-8"), encoding="utf-8")
    found: list[bool] = []

    def serving(*args: object) -> None:  # what it finds when it listens
        found.extend((mark.exists(), taken.exists()))

    monkeypatch.setattr(recall_server, "_serve", serving)

    assert recall_server.serve(config) == 0
    assert found == [False, False]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
@pytest.mark.parametrize("name", [recall_wedge.SUSPECT, recall_server.PID_NAME])
def test_a_fifo_in_place_of_the_mark_or_the_pid_is_not_waited_on(
    config: Config, killed: list[int], clock: Clock, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Read in place, a FIFO there was waited on for a writer that never comes, by every hook
    the server answered or did not acknowledge, before its own recall: each recalled nothing
    at its deadline. It reads as no mark (a mark is renamed over it), or no pid (not ended)."""
    hooks(config, [], monkeypatch)
    path = config.state_dir / "agents" / name
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    done: list[bool] = []

    def answered_then_not_acknowledged() -> None:
        recall_wedge.acknowledged(config, clock.monotonic())
        done.append(recall_wedge.found_wedged(config, PID))

    hook = threading.Thread(target=answered_then_not_acknowledged, daemon=True)
    hook.start()
    hook.join(5.0)  # a bound for the fault only: done at once
    try:
        assert done == [False]
        mark = config.state_dir / "agents" / recall_wedge.SUSPECT
        assert mark.exists() == (name == recall_wedge.SUSPECT)  # marked: the pid was read
        if name == recall_wedge.SUSPECT:
            assert mark.read_text(encoding="utf-8").split()[0] == str(PID)
    finally:  # a hook waiting to open it (the fault) is let go
        for way in (os.O_WRONLY, os.O_RDONLY):
            with contextlib.suppress(OSError):
                os.close(os.open(path, way | os.O_NONBLOCK))


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
def test_a_link_in_place_of_the_mark_is_not_written_through(
    config: Config, killed: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Written in place, a mark went through a link there into whatever it named."""
    hooks(config, [], monkeypatch)
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("not memidx's\n", encoding="utf-8")
    mark = config.state_dir / "agents" / recall_wedge.SUSPECT
    mark.symlink_to(elsewhere)

    assert not recall_wedge.found_wedged(config, PID)

    assert elsewhere.read_text(encoding="utf-8") == "not memidx's\n"
    assert not mark.is_symlink() and mark.read_text(encoding="utf-8").split()[0] == str(PID)
