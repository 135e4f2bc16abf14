"""The time a prompt hook's own recall takes, measured by the hooks before it
(memidx/agents/recall_times.py): a hook starts one only when the time it has left exceeds what
they took (a hook waiting for its server looks at it before then: test_recall_wait.py).
In-process, on a clock the test moves: the hooks' recalls, servers and sockets are given."""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from memidx.agents import actions, recall_client, recall_server, recall_times
from memidx.agents.recall import Recall
from memidx.agents.recall_times import BEGAN, FLOOR, FORGET_AFTER, TOOK, Line
from memidx.config import Config
from memidx.process_start import process_started
from tests.unit.clocks import Ticks

NOW = 1_800_000_000.0


class Clock(Ticks):
    """time.monotonic and time.time at once, moved by the test (and by what it gives)."""

    def time(self) -> float:
        return NOW + self.now


def took(*seconds: float, state: str = TOOK, ago: float = 1.0) -> list[Line]:
    return [(NOW - ago, f"{100 + n}-1", s, state) for n, s in enumerate(seconds)]


def never_gone(writer: str) -> bool:
    return False


def always_gone(writer: str) -> bool:
    return True


@pytest.mark.parametrize(
    ("lines", "gone", "needed"),
    [
        ([], never_gone, FLOOR),
        (took(0.1, 0.2), never_gone, FLOOR),  # never less than FLOOR
        (took(0.5), never_gone, 0.5),
        (took(0.4, 0.9, 0.5), never_gone, 0.9),  # of fewer than ten, the longest
        # of ten, the ninth longest: one slow recall (a cold disk) is not the rule
        (took(*[0.4] * 8, 0.6, 3.0), never_gone, 0.6),
        (took(0.4, 0.9, ago=FORGET_AFTER + 1), never_gone, FLOOR),  # forgotten
        (took(0.45, state=BEGAN), never_gone, FLOOR),  # still running: it took nothing yet
        (took(0.45, state=BEGAN), always_gone, 0.9),  # cut off: more than it had, counted twice
    ],
    ids=["none", "floor", "one", "longest", "ninth-of-ten", "old", "running", "cut-off"],
)
def test_the_time_needed_is_what_nearly_all_of_the_last_recalls_took(
    lines: list[Line], gone: Callable[[str], bool], needed: float
) -> None:
    assert recall_times.needed_of(lines, NOW, gone) == needed


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The hooks' clock; no server answers, none is started."""
    moved = Clock()
    monkeypatch.setattr(actions, "time", moved)
    monkeypatch.setattr(recall_times, "time", moved)
    monkeypatch.setattr(recall_client, "ask_waiting", no_answer)
    monkeypatch.setattr(recall_client, "start", no_answer)
    return moved


def no_answer(*args: object) -> None:
    """No server answers (ask_waiting), and none is started (start)."""


def recalling_in(clock: Clock, seconds: float, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The hooks' own recall takes `seconds` on `clock`; the prompts it was asked for."""
    asked: list[str] = []

    class Timed:
        def __init__(self, config: Config) -> None:
            pass

        def recall(self, prompt: str, seen: object) -> Recall:
            asked.append(prompt)
            clock.now += seconds
            return Recall("recalled here", ())

    monkeypatch.setattr("memidx.agents.recall.Recaller", Timed)
    return asked


def test_a_hook_left_less_than_its_own_recall_took_lately_skips_it(
    config: Config, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hook started its own recall whenever 0.3 s were left, which took 0.41-0.9 s at a
    load of 6-9: it ran past the deadline on the cores the other hooks needed."""
    asked = recalling_in(clock, 0.7, monkeypatch)
    first = actions._recall(config, "first", [], clock.now + 1.5)  # pyright: ignore[reportPrivateUsage]

    assert recall_times.needed(config) == pytest.approx(0.7)  # measured, and kept for the next
    with pytest.raises(TimeoutError, match="the deadline left no time to recall"):
        actions._recall(config, "late", [], clock.now + 0.7)  # pyright: ignore[reportPrivateUsage]
    actions._recall(config, "in time", [], clock.now + 0.9)  # pyright: ignore[reportPrivateUsage]

    assert first == ("recalled here", [])
    assert asked == ["first", "in time"]


def test_a_recall_cut_off_at_its_deadline_counts_as_needing_more_than_it_had(
    config: Config, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process of a hook whose own recall outran its deadline ends there (runner): what
    it began is all that is left of it, and the next hook with that much time skips its own."""
    recall_times.began(config, 0.45)
    monkeypatch.setattr(recall_times, "_gone", always_gone)  # as when its process has ended
    asked = recalling_in(clock, 0.1, monkeypatch)

    with pytest.raises(TimeoutError, match="900 ms needed"):
        actions._recall(config, "late", [], clock.now + 0.8)  # pyright: ignore[reportPrivateUsage]

    assert recall_times.needed(config) == pytest.approx(0.9)
    assert asked == []


@pytest.mark.parametrize(
    "lines",
    [
        took(3.0, state=BEGAN, ago=-3600.0),  # the wall clock set back an hour since
        [(float("inf"), "100-1", 3.0, TOOK)],  # a damaged file
        [(NOW - 1.0, "100-1", float("inf"), TOOK)],
    ],
    ids=["future", "inf-when", "no-time"],
)
def test_a_measurement_from_another_time_or_of_no_time_is_forgotten(lines: list[Line]) -> None:
    """A line written before the wall clock was set back was kept until the clock came back
    to it: a slow one kept every hook from its own recall, which alone writes new lines, for
    as long (an `inf` time: forever)."""
    assert recall_times.needed_of(lines, NOW, always_gone) == FLOOR


def test_a_line_naming_a_pid_no_process_can_have_is_read(
    config: Config, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asking the system about the pid raised OverflowError, through every prompt hook, and
    the line stayed: no hook recalled in its own process again (the hook path's error)."""
    times = recall_server.server_folder(config) / recall_times.TIMES
    times.parent.mkdir(parents=True)
    times.write_text(f"{clock.time() - 1:.3f} {'9' * 30}-1 0.200 began\n", encoding="ascii")
    asked = recalling_in(clock, 0.1, monkeypatch)

    assert recall_times.needed(config, clock.time()) == pytest.approx(0.4)  # cut off: gone
    assert actions._recall(config, "p", [], clock.now + 1.0) == ("recalled here", [])  # pyright: ignore[reportPrivateUsage]
    assert asked == ["p"]


@pytest.mark.skipif(process_started(os.getpid()) is None, reason="Linux: /proc tells")
def test_a_cut_off_hooks_pid_given_to_another_process_still_reads_as_cut_off(
    config: Config, clock: Clock
) -> None:
    """The pid of a hook cut off at its deadline, given again to a process started since
    (this one), read as the hook still running: its recall counted as taking nothing."""
    times = recall_server.server_folder(config) / recall_times.TIMES
    times.parent.mkdir(parents=True)
    reused = f"{os.getpid()}-1-1"  # this pid, and a process started at tick 1 of the boot
    times.write_text(f"{clock.time() - 1:.3f} {reused} 0.450 began\n", encoding="ascii")

    assert recall_times.needed(config, clock.time()) == pytest.approx(0.9)
    assert not recall_times._gone(recall_times._writer())  # pyright: ignore[reportPrivateUsage]
    assert not recall_times._gone(f"{os.getpid()}-1")  # pyright: ignore[reportPrivateUsage]


def test_a_hook_rewriting_the_times_meanwhile_puts_no_finished_recall_back(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hook B read the file before hook A's TOOK and wrote after it, putting A's BEGAN back:
    A's process gone, that read as a recall cut off at 2.6 s, and every hook skipped its own
    for two minutes. A runs in a thread of its own (its own writer), B in the test's."""
    ready, go = threading.Event(), threading.Event()
    monkeypatch.setattr(recall_times, "LOCK_WAIT", 10.0)  # A waits for B, however loaded

    def hook_a() -> None:
        recall_times.began(config, 1.3)
        ready.set()
        go.wait(10)
        recall_times.took(config, 0.2)

    a = threading.Thread(target=hook_a)
    a.start()
    assert ready.wait(10)
    reads = recall_times._read  # pyright: ignore[reportPrivateUsage]

    def b_reads(config: Config) -> list[Line]:
        found = reads(config)
        if threading.current_thread() is threading.main_thread() and not go.is_set():
            go.set()  # A ends its recall while B holds what it read
            a.join(0.3)  # done by then when nothing keeps it waiting (no lock: the defect)
        return found

    monkeypatch.setattr(recall_times, "_read", b_reads)
    recall_times.began(config, 1.0)
    a.join(10)

    states = sorted(state for _, _, _, state in reads(config))
    assert states == [BEGAN, TOOK]  # B's BEGAN and A's TOOK, not A's BEGAN back
    assert recall_times.needed_of(reads(config), NOW, never_gone) == FLOOR


def test_a_recall_that_failed_is_no_measurement(
    config: Config, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Failing:
        def __init__(self, config: Config) -> None:
            clock.now += 1.2
            raise FileNotFoundError("no index")

    monkeypatch.setattr("memidx.agents.recall.Recaller", Failing)
    monkeypatch.setattr(recall_times, "_gone", always_gone)
    with pytest.raises(FileNotFoundError):
        actions._recall(config, "a prompt", [], clock.now + 1.5)  # pyright: ignore[reportPrivateUsage]

    assert recall_times.needed(config) == FLOOR


def test_a_hook_waiting_for_a_starting_server_keeps_what_its_own_recall_took(
    config: Config, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    recalling_in(clock, 0.8, monkeypatch)
    actions._recall(config, "first", [], clock.now + 1.5)  # pyright: ignore[reportPrivateUsage]
    kept: list[object] = []

    def asked(*args: object) -> None:
        kept.append(args[-1])  # the time it keeps for its own recall

    monkeypatch.setattr(recall_client, "ask_waiting", asked)

    actions._recall(config, "second", [], clock.now + 1.5)  # pyright: ignore[reportPrivateUsage]

    assert kept == [pytest.approx(0.8 + actions.WAKE)]


def test_a_hook_with_no_time_for_its_own_recall_waits_for_a_starting_server_to_the_end(
    config: Config, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keeping the time its own recall needs, a hook left less than that gave up waiting for a
    server loading its model at once, though the server was its only chance of an answer."""
    recalling_in(clock, 1.2, monkeypatch)
    actions._recall(config, "first", [], clock.now + 1.5)  # pyright: ignore[reportPrivateUsage]
    kept: list[object] = []

    def asked(*args: object) -> None:
        kept.append(args[-1])

    monkeypatch.setattr(recall_client, "ask_waiting", asked)

    with pytest.raises(TimeoutError, match="the deadline left no time to recall"):
        actions._recall(config, "second", [], clock.now + 1.0)  # pyright: ignore[reportPrivateUsage]

    assert kept == [0.0]


@pytest.mark.skipif(process_started(os.getpid()) is None, reason="Linux: /proc tells")
def test_a_cut_off_hook_its_agent_has_not_reaped_yet_reads_as_cut_off() -> None:
    """A hook's process that ended, its agent not yet having reaped it (a zombie: the system
    still answers for its pid, with its start time), read as the hook still running, and its
    recall cut off at the deadline as one taking nothing."""
    hook = subprocess.Popen(["true"])
    try:
        writer = f"{hook.pid}-{hook.pid}-{process_started(hook.pid)}"
        os.waitid(os.P_PID, hook.pid, os.WEXITED | os.WNOWAIT)  # ended, not reaped

        assert recall_times._gone(writer)  # pyright: ignore[reportPrivateUsage]
    finally:
        hook.wait()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_in_place_of_the_times_is_read_as_none_without_waiting(config: Config) -> None:
    """Opening it waited for a writer that never comes: every prompt hook hung there, before
    it asked even a warm server, and recalled nothing at its deadline."""
    times = recall_server.server_folder(config) / recall_times.TIMES
    times.parent.mkdir(parents=True)
    os.mkfifo(times)
    needed: list[float] = []
    reader = threading.Thread(target=lambda: needed.append(recall_times.needed(config)))
    reader.daemon = True
    reader.start()
    reader.join(5.0)
    try:
        assert needed == [FLOOR]
    finally:  # a reader waiting to open it (the fault) is let go
        with contextlib.suppress(OSError):
            os.close(os.open(times, os.O_WRONLY | os.O_NONBLOCK))
