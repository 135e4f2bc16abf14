"""Hooks that find no recall server start one between them: one start in START_GRACE seconds
(`recall.started`), judged on time.monotonic(), never on the wall clock, which NTP steps. In
process: the start is recorded, not made; the clocks are the test's, moved by it alone."""

from __future__ import annotations

import contextlib
import errno
import os
import threading
import time
from pathlib import Path
from typing import BinaryIO

import pytest

from memidx import portable
from memidx.agents import actions, recall_client, recall_server
from memidx.agents.recall import Recall
from memidx.config import Config
from memidx.portable import BOOT_ID, boot_id
from tests.unit.clocks import Clock, LookEnds

HOUR = 3600.0
THIS_BOOT = "6f1d0c52-8a3e-4b57-9c1e-2d4f6a8b0c11"  # what boot_id() says in these tests
ANOTHER_BOOT = "0b9e7d35-1c2a-4f68-8e0d-5a7b3c9f1e22"


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    given = Clock()
    monkeypatch.setattr(recall_client, "time", given)
    monkeypatch.setattr("memidx.portable.boot_id", lambda: THIS_BOOT)
    return given


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The servers hooks started (recorded, none runs)."""
    argvs: list[list[str]] = []

    def record(argv: list[str], log: BinaryIO) -> None:
        argvs.append(argv)

    monkeypatch.setattr("memidx.children.start_detached", record)
    return argvs


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")


@pytest.mark.parametrize(
    ("passed", "stepped", "starts"),
    [
        (1.0, 0.0, 1),  # the first start's grace: hooks wait for its lock
        (recall_server.START_GRACE + 1, 0.0, 2),  # it never took its lock: another starts
        (recall_server.START_GRACE + 1, -HOUR, 2),  # the wall clock set back meanwhile
        (1.0, HOUR, 1),  # the wall clock set forward meanwhile
    ],
)
def test_hooks_start_one_server_in_the_grace_whatever_the_wall_clock_does(
    config: Config,
    clock: Clock,
    started: list[list[str]],
    *,
    passed: float,
    stepped: float,
    starts: int,
) -> None:
    recall_client.start(config)
    clock.passes(passed, stepped)

    recall_client.start(config)

    assert len(started) == starts


def test_a_mark_from_the_future_lets_a_hook_start_a_server(
    config: Config, clock: Clock, started: list[list[str]]
) -> None:
    """A mark made later than now on the shared clock (the boot before this one)."""
    folder = recall_server.server_folder(config)
    folder.mkdir(parents=True)
    (folder / recall_server.STARTED).write_text(f"{clock.boot + HOUR!r}\n", encoding="utf-8")

    recall_client.start(config)

    assert len(started) == 1


@pytest.mark.parametrize(
    ("boot", "starts"),
    [(THIS_BOOT, 0), (ANOTHER_BOOT, 1), (None, 0)],
    ids=["this boot", "another boot", "no boot id"],
)
def test_a_mark_of_another_boot_lets_a_hook_start_a_server(
    config: Config, clock: Clock, started: list[list[str]], boot: str | None, starts: int
) -> None:
    """A mark made 1 s before now on time.monotonic(), which starts again at each boot: one
    made in the boot before, as long after that boot's start as now is after this one's, kept
    every hook from a start. The boot id beside the time says whose it is; a mark with its
    time alone (an older memidx's, or made where there is no boot id) counts by it, as before."""
    folder = recall_server.server_folder(config)
    folder.mkdir(parents=True)
    mark = folder / recall_server.STARTED
    mark.write_text(f"{clock.boot - 1.0!r}\n" + (f"{boot}\n" if boot else ""), encoding="ascii")

    recall_client.start(config)

    assert len(started) == starts
    if starts:  # this start's mark, of this boot
        assert mark.read_text(encoding="ascii") == f"{clock.boot!r}\n{THIS_BOOT}\n"


@pytest.mark.skipif(not Path(BOOT_ID).is_file(), reason="no boot id (not Linux)")
def test_the_boot_id_is_the_systems() -> None:
    assert boot_id() == Path(BOOT_ID).read_text(encoding="ascii").strip()


@pytest.mark.parametrize(
    ("age", "starts"), [(1.0, 0), (-HOUR, 1), (recall_server.START_GRACE + 1, 1)]
)
def test_an_older_memidxs_empty_mark_counts_by_its_time_of_change(
    config: Config, clock: Clock, started: list[list[str]], age: float, starts: int
) -> None:
    """An empty mark (touched by an older memidx, or being written): its time of change on the
    wall clock, where one from the future (the clock set back since) counts for nothing."""
    folder = recall_server.server_folder(config)
    folder.mkdir(parents=True)
    mark = folder / recall_server.STARTED
    mark.touch()
    changed = clock.wall - age
    os.utime(mark, (changed, changed))

    recall_client.start(config)

    assert len(started) == starts


@pytest.mark.parametrize(
    "error", [errno.EAGAIN, errno.ENOMEM, errno.EMFILE, errno.ENOSPC], ids=errno.errorcode.get
)
def test_a_server_that_cannot_be_started_costs_the_hook_nothing_but_a_notice(
    config: Config, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], error: int
) -> None:
    """The system refused the start (no process left under a limit: EAGAIN; no memory, no
    file left, a full disk): the error went through start() and out of the prompt hook before
    its own recall, which needs no new process, and nothing was recalled; the session-start
    hook's digest went the same way. It is a notice in the hook's log (its stderr is kept
    there: runner._keep_said), and the hook goes on."""

    def refused(argv: list[str], log: BinaryIO) -> None:
        raise OSError(error, os.strerror(error))

    monkeypatch.setattr("memidx.children.start_detached", refused)

    recall_client.start(config)

    said = capsys.readouterr().err
    assert said.startswith("memidx: notice: the recall server could not start"), said
    assert os.strerror(error) in said


def test_two_hooks_that_find_no_server_at_the_same_moment_start_one(
    config: Config, clock: Clock, started: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each hook read the mark, then wrote its own: a second hook that read it between the
    first one's read and write (no mark yet, for neither) started a second server. The
    second one reads it now while the first decides, and leaves the start to it."""
    read = recall_client._started_at  # pyright: ignore[reportPrivateUsage]
    second = [True]

    def between(mark: Path, boot: str | None) -> float | None:
        made = read(mark, boot)
        if second:  # the first hook's read done, its write not yet made: the second's start
            second.clear()
            recall_client.start(config)
        return made

    monkeypatch.setattr(recall_client, "_started_at", between)

    recall_client.start(config)

    assert len(started) == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_in_place_of_the_mark_is_neither_waited_on_nor_written_into(
    config: Config, clock: Clock, started: list[list[str]]
) -> None:
    """Read and written in place, a FIFO there was waited on for a writer (or a reader) that
    never comes, by every hook that found no server, before its own recall: each recalled
    nothing at its deadline. An old one is an older memidx's empty mark, replaced by a mark."""
    mark = recall_server.server_folder(config) / recall_server.STARTED
    mark.parent.mkdir(parents=True)
    os.mkfifo(mark)
    os.utime(mark, (clock.wall - HOUR, clock.wall - HOUR))
    done: list[None] = []
    hook = threading.Thread(target=lambda: done.append(recall_client.start(config)), daemon=True)
    hook.start()
    hook.join(5.0)
    try:
        assert (done, len(started)) == ([None], 1)
        assert mark.read_text(encoding="utf-8") == f"{clock.boot!r}\n{THIS_BOOT}\n"
    finally:  # a hook waiting to open it (the fault) is let go
        for way in (os.O_WRONLY, os.O_RDONLY):
            with contextlib.suppress(OSError):
                os.close(os.open(mark, way | os.O_NONBLOCK))


NEEDS_FIFO = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")


def _no_descriptor_left(path: Path, **how: object) -> contextlib.AbstractContextManager[bool]:
    raise OSError(errno.EMFILE, os.strerror(errno.EMFILE), str(path))


@pytest.mark.parametrize(
    "fault", ["folder", "no-descriptor", pytest.param("fifo", marks=NEEDS_FIFO)]
)
def test_a_lock_that_cannot_be_looked_at_costs_the_hook_a_notice_not_its_own_recall(
    config: Config,
    started: list[list[str]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fault: str,
) -> None:
    """A folder named recall.lock (EISDIR) or no descriptor left (EMFILE) raised out of
    starting(), through the prompt hook before its own recall: nothing was recalled; a FIFO
    there, opened to be locked, held the hook to its deadline. It is a notice, once, and no
    server is started (it could not take its lock either)."""
    lock = recall_server.server_folder(config) / "recall.lock"
    lock.mkdir(parents=True)
    if fault != "folder":
        lock.rmdir()
        lock.touch() if fault == "no-descriptor" else os.mkfifo(lock)
    if fault == "no-descriptor":
        monkeypatch.setattr("memidx.portable.file_lock", _no_descriptor_left)

    class Here:
        def __init__(self, config: Config) -> None:
            pass

        def recall(self, prompt: str, seen: object) -> Recall:
            return Recall(f"recalled here: {prompt}", ())

    monkeypatch.setattr("memidx.agents.recall.Recaller", Here)

    recalled: list[tuple[str, list[str]]] = []
    deadline = time.monotonic() + 1.5
    hook = threading.Thread(
        target=lambda: recalled.append(actions._recall(config, "a prompt", [], deadline)),  # pyright: ignore[reportPrivateUsage]
        daemon=True,
    )
    hook.start()
    hook.join(5.0)  # a bound for the fault only: done at once
    try:
        assert recalled == [("recalled here: a prompt", [])]
    finally:  # a hook waiting to open it (the fault) is let go
        with contextlib.suppress(OSError):
            os.close(os.open(lock, os.O_RDONLY | os.O_NONBLOCK))
        hook.join(5.0)
    assert started == []
    said = capsys.readouterr().err.splitlines()
    assert len(said) == 1 and said[0].startswith("memidx: notice: the recall server could not")


def test_a_hooks_look_at_the_lock_does_not_turn_a_starting_server_away(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hook's look at the server's lock (recall_client.starting, every 50 ms of each hook
    waiting while a server starts) holds it for some microseconds: a server that met one took
    it for another server's and went at once (4 of 300 starts with 20 hooks waiting), and
    hooks started none for START_GRACE seconds. It waits a moment for its lock: here the look
    ends at its first wait."""
    served: list[Path] = []

    def serve(config: Config, path: Path, idle: float, owned: object) -> None:
        served.append(path)

    def socket_path(config: Config) -> Path:
        return config.root / "recall.sock"

    monkeypatch.setattr(recall_server, "_serve", serve)
    monkeypatch.setattr(recall_server, "socket_path", socket_path)
    look = contextlib.ExitStack()
    look.enter_context(portable.file_lock(recall_server.server_folder(config) / "recall.lock"))

    monkeypatch.setattr(portable, "time", LookEnds(look))
    try:
        assert recall_server.serve(config, idle_exit=60.0) == 0
    finally:
        look.close()

    assert served == [config.root / "recall.sock"]


def test_the_servers_log_keeps_its_last_lines_past_its_bound(
    config: Config, started: list[list[str]]
) -> None:
    """Each server a hook starts appends to recall-server.log what it exits on; nothing read
    it down, so a server failing at every start grew it for as long as prompts came. Past
    MAX_LOG bytes a start keeps its last lines only, from a line's start."""
    from memidx.agents.server_log import LOG_NAME, MAX_LOG

    log = recall_server.server_folder(config) / LOG_NAME
    log.parent.mkdir(parents=True)
    lines = [f"memidx: error: the model failed, start {n}\n" for n in range(20_000)]
    log.write_text("".join(lines), encoding="utf-8")

    recall_client.start(config)

    kept = log.read_text(encoding="utf-8")
    assert started and MAX_LOG // 4 < len(kept) <= MAX_LOG
    assert kept.endswith(lines[-1]) and kept.startswith("memidx: error:")


def test_the_servers_log_cut_past_its_bound_never_begins_in_a_line(
    config: Config, started: list[list[str]]
) -> None:
    """The last half kept began where the cut fell when no line ended in it (a line longer
    than it, whose server was killed as it wrote it): the log began with half a line."""
    from memidx.agents.server_log import LOG_NAME, MAX_LOG

    log = recall_server.server_folder(config) / LOG_NAME
    log.parent.mkdir(parents=True)
    head = "".join(f"memidx: error: start {n}\n" for n in range(5_000))
    log.write_text(head + "memidx: error: " + "x" * MAX_LOG, encoding="utf-8")

    recall_client.start(config)

    kept = log.read_text(encoding="utf-8")
    assert started and len(kept) <= MAX_LOG
    assert kept == "" or kept.startswith("memidx: error:"), kept[:40]
