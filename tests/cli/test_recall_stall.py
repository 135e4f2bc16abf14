"""A recall server alive but unable to answer: its answering thread stuck on one prompt after
acknowledging it (a stuck read, a model call that never returns), or the server closing. The
hook still recalls in its own process in time, and one busy with other hooks' prompts is
waited for, not turned away. In-process: the server's loop in a thread of this process, its
answers given by a recaller the test holds on an Event; the hooks are `actions._recall` calls,
whose own recall is given too."""

from __future__ import annotations

import errno
import json
import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Generator, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, cast

import pytest

from memidx.agents import (
    actions,
    recall_client,
    recall_loop,
    recall_server,
    recall_wedge,
    recall_workers,
)
from memidx.agents.recall import Recall, Recaller
from memidx.config import Config
from memidx.portable import file_lock

CONFIG = recall_server.CONFIG
SERVED = "from the server"
# seconds a hook has here where the test is that it does not wait to its deadline: far past
# what a loaded machine takes (a 0.9 s deadline was reached, on CI-like load, by a hook that
# waited as it should), so that one waiting to its deadline is told apart on any load
LONG = 10.0
HERE = "recalled here"


class Held:
    """A server's recaller whose answers take `each` seconds, computing all along when `busy`
    (else idle, as a stuck answer is), and wait while `held` is clear."""

    def __init__(self, each: float = 0.0, *, busy: bool = False) -> None:
        self.each, self.busy, self.held = each, busy, threading.Event()
        self.held.set()

    def recall(self, prompt: str, seen: object) -> Recall:
        self.held.wait(10.0)
        end = time.monotonic() + self.each
        while self.busy and time.monotonic() < end:
            sum(range(10_000))  # a slow answer computes
        time.sleep(max(0.0, end - time.monotonic()))
        return Recall(SERVED, ())


class Here:
    """The hook's own recall, at once."""

    def __init__(self, config: Config) -> None:
        pass

    def recall(self, prompt: str, seen: object) -> Recall:
        return Recall(HERE, ())


def no_start(config: Config) -> None:
    """What recall_client.start does here: nothing."""


def never_kill(pid: int) -> None:
    raise AssertionError(f"a hook ended the server {pid}")


@pytest.fixture
def config(monkeypatch: pytest.MonkeyPatch) -> Iterator[Config]:
    """A memory in a folder short enough for its socket, whose hooks start no server and
    recall at once in their own process, and never end a server."""
    monkeypatch.setattr(recall_client, "start", no_start)
    monkeypatch.setattr("memidx.portable.kill", never_kill)
    monkeypatch.setattr("memidx.agents.recall.Recaller", Here)
    folder = Path(tempfile.mkdtemp(prefix="mx-"))
    yield Config(root=folder, index_path=folder / ".memidx" / "index.sqlite")
    shutil.rmtree(folder)


@contextmanager
def served(
    config: Config,
    recaller: Held,
    wrapped: type[Failing | Sometimes] | None = None,
    *,
    owned: bool = False,
) -> Generator[threading.Thread]:
    """The server's loop for `config` in a thread, answering with `recaller`, provably the
    memory's server (its lock held, `recall.pid` naming the process listening; looked at as
    the real server does when `owned`, else taken as true); released and ended (a hook of
    another configuration) when the test is done."""
    path = recall_server.socket_path(config)
    assert path is not None
    folder = recall_server.server_folder(config)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / recall_server.PID_NAME).write_text(f"{os.getpid()}\n", encoding="utf-8")
    with (
        file_lock(folder / "recall.lock", wait=False),
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server,
    ):
        recall_loop.listen(server, path)
        server.settimeout(0.05)
        key = recall_server.config_key(config)
        listening = server if wrapped is None else cast(socket.socket, wrapped(server))
        ours = recall_loop.owner(path, folder) if owned else lambda: True
        vars(recaller).setdefault("config", config)  # the loop traces in it (a Recaller's)
        args = (listening, cast(Recaller, recaller), 30.0, key, ours)
        loop = threading.Thread(target=recall_loop._loop, args=args, daemon=True)  # pyright: ignore[reportPrivateUsage]
        loop.start()
        try:
            yield loop
        finally:
            recaller.held.set()
            _end(config, loop)


def _end(config: Config, loop: threading.Thread) -> None:
    """Have the loop exit: a hook of another configuration, once the server takes one."""
    end = time.monotonic() + 10.0
    while loop.is_alive() and time.monotonic() < end:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn, suppress(OSError):
            conn.settimeout(1.0)
            conn.connect(str(recall_server.socket_path(config)))
            if conn.recv(1) == recall_server.ACK:
                conn.sendall(b'{"config": "another"}\n')
                recall_server.read_line(conn)
        loop.join(0.05)


def asked(config: Config, request: dict[str, object]) -> socket.socket:
    """A hook's connection, acknowledged, its request sent (its answer not read)."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(5.0)
    conn.connect(str(recall_server.socket_path(config)))
    assert conn.recv(1) == recall_server.ACK
    conn.sendall(json.dumps(request).encode() + b"\n")
    return conn


def prompted(config: Config) -> socket.socket:
    return asked(config, {"prompt": "a prompt", CONFIG: recall_server.config_key(config)})


def hook(config: Config, deadline: float) -> tuple[str, float]:
    """A prompt hook with `deadline` seconds: its block and how long it took."""
    started = time.monotonic()
    block, _ = actions._recall(config, "a prompt", [], started + deadline)  # pyright: ignore[reportPrivateUsage]
    return block, time.monotonic() - started


def loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Waits a loaded machine outlasts, where a test is not of them: the acknowledgement of a
    server whose thread shares this process with the test's (ACK_WAIT, 0.3 s: a hook that did
    not get it in time recalled in its own process), and an answer of 0.1 s (STALLED_AFTER)."""
    monkeypatch.setattr(recall_client, "ACK_WAIT", LONG / 2)
    monkeypatch.setattr(recall_workers, "STALLED_AFTER", 2.0)


def suspected(config: Config) -> bool:
    return (config.state_dir / "agents" / recall_wedge.SUSPECT).exists()


def test_a_hook_whose_answer_is_stuck_recalls_in_its_own_process_in_time(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Acknowledged, the hook waited for an answer to its whole deadline and injected nothing,
    every prompt for the 30 s until the server gave up on the stuck answer."""
    monkeypatch.setattr(recall_workers, "STALLED_AFTER", 0.2, raising=False)
    recaller = Held()
    recaller.held.clear()
    with served(config, recaller):
        block, took = hook(config, LONG)  # it looks again every 0.2 s: stalled from 0.2 s

    assert (block, suspected(config)) == (HERE, False)
    assert took < LONG / 2, took  # not at its deadline


def test_hooks_after_an_answer_stalled_are_turned_away_at_once(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recall_workers, "STALLED_AFTER", 0.2, raising=False)
    recaller = Held()
    recaller.held.clear()
    with served(config, recaller), prompted(config):
        time.sleep(0.25)  # the prompt before has been answered for longer than STALLED_AFTER
        hooks = [hook(config, LONG) for _ in range(3)]

    assert [block for block, _ in hooks] == [HERE] * 3
    assert max(took for _, took in hooks) < LONG / 2, hooks  # not their deadline
    assert not suspected(config)  # the server said why: it is alive, not wedged


def test_a_busy_server_is_waited_for_not_turned_away(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the two tests above must not do: a hook queued behind seven prompts (0.7 s of
    answers, 0.1 s each) looks again every 0.2 s, finds the server answering (each answer
    young) and waits for its own, rather than recall in its process on cores the server
    needs; nor is the server ever marked or ended (the config fixture's kill fails the test).
    Under load the server's thread, sharing this process, acknowledged a look later than
    ACK_WAIT (0.3 s), and an answer of 0.1 s took longer than STALLED_AFTER (0.5 s): both are
    longer here, as what is tested is the hook's waiting behind answers that go on."""
    loaded(monkeypatch)
    with served(config, Held(each=0.1)):
        queued = [prompted(config) for _ in range(7)]
        # a deadline well past the eight answers: at 1.0 s a loaded machine's answers came
        # after it (CI), and the hook that waited as it should raised for want of time
        block, took = hook(config, 10.0)
        for conn in queued:
            conn.close()

    assert block == SERVED, took
    assert took > 0.6, took  # behind the seven, looking again meanwhile


def test_a_waiting_hooks_looks_cost_the_server_no_answer(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each look (an empty connection) was answered as a request: code_stamp() (~2 ms) and a
    JSON error, 20 waiting hooks' five looks a second taking a fifth of the answering thread."""
    stamps: list[str] = []
    stamp = recall_workers.code_stamp
    with served(config, Held()):
        monkeypatch.setattr(recall_workers, "code_stamp", lambda: stamps.append("") or stamp())
        path = recall_server.socket_path(config)
        assert path is not None
        looks = [recall_client._answering(path) for _ in range(5)]  # pyright: ignore[reportPrivateUsage]
        with prompted(config) as conn:
            assert SERVED.encode() in recall_server.read_line(conn)
        stamped = len(stamps)

    assert looks == [True] * 5
    assert stamped == 1, stamps  # the prompt's, not the looks'


def test_hooks_acknowledged_before_a_stuck_answer_are_let_go_when_the_server_gives_up(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server gave up on a stuck answer (STUCK) and spent 5 s joining its thread: the hooks
    it had acknowledged waited to their deadline and injected nothing."""
    monkeypatch.setattr(recall_workers, "STUCK", 0.2)
    monkeypatch.setattr(
        recall_workers, "STALLED_AFTER", 10.0, raising=False
    )  # only giving up is tried here
    # a server that joined its stuck thread would end only once it came back (Held's 10 s;
    # CLOSE_WAIT made longer): a join of LONG / 4 after the hook (itself < LONG / 2) tells it
    # from one that ended as it gave up, on any load (join(10.0) waited the thread out)
    monkeypatch.setattr(recall_loop, "CLOSE_WAIT", 3 * LONG)
    recaller = Held()
    recaller.held.clear()
    with served(config, recaller) as loop, prompted(config):
        block, took = hook(config, LONG)
        loop.join(LONG / 4)
        ended = not loop.is_alive()

    assert (block, ended) == (HERE, True)
    assert took < LONG / 2, took  # once the server gave up, not at its deadline


class Gated(Held):
    """Held: its first answer given once `first` is set, the others once `held` is, each
    `each` seconds later."""

    def __init__(self, each: float = 0.0) -> None:
        super().__init__(each)
        self.held.clear()
        self.first, self.answers = threading.Event(), 0

    def recall(self, prompt: str, seen: object) -> Recall:
        self.answers += 1
        (self.first if self.answers == 1 else self.held).wait(3 * LONG)
        time.sleep(self.each)
        return Recall(SERVED, ())


def closing(config: Config) -> bool:
    """Whether the server says CLOSING to a new connection (one it acknowledges instead waits
    its turn behind the others, closed: an empty request, answered with nothing)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(LONG)
        conn.connect(str(recall_server.socket_path(config)))
        return conn.recv(1) == recall_server.CLOSING


def test_a_closing_server_tells_hooks_so_at_once(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server closing (a hook of another configuration came) while it answered the hooks
    it had acknowledged took each new hook's connection and never acknowledged it: the hook
    waited ACK_WAIT (0.3 s) for nothing, and marked it suspect as if it were wedged. Here that
    wait is LONG, and the server answers its hooks only once the test has its hook's time: a
    hook that waited is told from one that did not on any load (it took 0.3 s at the most, by
    0.3 s, and the server could end before the hook came, on a loaded machine)."""
    monkeypatch.setattr(recall_client, "ACK_WAIT", LONG)
    monkeypatch.setattr(recall_workers, "STALLED_AFTER", 3 * LONG)  # held answers are no stall
    monkeypatch.setattr(recall_loop, "CLOSE_WAIT", 3 * LONG)
    recaller = Gated()
    with served(config, recaller) as loop:
        first = prompted(config)  # its answer held until the hooks below are acknowledged
        stale = asked(config, {CONFIG: "another"})  # the server closes after answering it
        queued = [prompted(config) for _ in range(4)]  # answered once the hook is done
        recaller.first.set()
        assert recall_server.STALE.encode() in recall_server.read_line(stale)
        deadline = time.monotonic() + LONG
        while not closing(config):  # the server looks whether to close every 0.05 s
            assert time.monotonic() < deadline, "the server never said it was closing"
        block, took = hook(config, LONG)
        still_closing = loop.is_alive()
        recaller.held.set()
        for conn in [first, *queued]:
            assert SERVED.encode() in recall_server.read_line(conn)
        for conn in [first, stale, *queued]:
            conn.close()

    assert (block, still_closing, suspected(config)) == (HERE, True, False)
    assert took < LONG / 2, took  # not the wait for an acknowledgement


def test_a_hook_acknowledged_by_a_closing_server_waits_for_its_answer(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A closing server answers the hooks it had acknowledged, but a waiting hook's look got
    CLOSING, and the hook gave its coming answer up for a recall in its own process (~0.5-0.9 s
    of imports and model load on the cores the server was answering with). The server closes
    only once the hook is acknowledged (its first answer held until then): on a loaded machine
    the hook came after it had closed, and was rightly told CLOSING at once."""
    monkeypatch.setattr(recall_workers, "STALLED_AFTER", 3 * LONG)  # a held answer is no stall
    monkeypatch.setattr(recall_loop, "CLOSE_WAIT", 3 * LONG)
    recaller = Gated(each=0.2)
    recaller.held.set()
    send = recall_client._send  # pyright: ignore[reportPrivateUsage]

    def acknowledged(*args: Any) -> bool:  # the hook sends its request once acknowledged
        recaller.first.set()
        return send(*args)

    monkeypatch.setattr(recall_client, "_send", acknowledged)
    with served(config, recaller):
        first = prompted(config)
        stale = asked(config, {CONFIG: "another"})  # the server closes after answering it
        queued = [prompted(config) for _ in range(3)]  # answered while it closes: 0.6 s
        block, took = hook(config, LONG)  # answered after them, looking every 0.2 s meanwhile
        for conn in [first, stale, *queued]:
            conn.close()

    assert block == SERVED, took


@contextmanager
def answering_once(config: Config, answer: bytes | None) -> Generator[None]:
    """A server that acknowledges one hook and reads its request, then sends `answer` and
    closes (None: never answers, and takes no other connection: a look waits ACK_WAIT)."""
    path = recall_server.socket_path(config)
    assert path is not None
    path.parent.mkdir(parents=True, exist_ok=True)
    done = threading.Event()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(path))
        server.listen(8)

        def once() -> None:
            conn, _ = server.accept()
            with conn:
                conn.sendall(recall_server.ACK)
                recall_server.read_line(conn)
                if answer is not None:
                    conn.sendall(answer)
                    return
                done.wait(5.0)

        thread = threading.Thread(target=once, daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join(5.0)
            path.unlink(missing_ok=True)


def test_a_waiting_hooks_look_ends_with_its_time(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A look waited its whole ACK_WAIT (0.3 s) however little time the hook had left: a
    server that acknowledged the hook and then stopped kept it up to 0.3 s past its timeout.
    Here ACK_WAIT is LONG: a look that waits it is told from one that does not on any load
    (the time asked for, 0.25 s, with 0.08 s more, was exceeded on a loaded machine)."""
    monkeypatch.setattr(recall_client, "ACK_WAIT", LONG)
    with answering_once(config, None):
        started = time.monotonic()
        answer = recall_client.ask(config, {"prompt": "a prompt"}, 0.25)
        took = time.monotonic() - started

    assert answer is not None and answer.get("error") == recall_server.NO_ANSWER
    heard = cast(float, answer[recall_server.HEARD])
    assert started <= heard <= started + took  # its acknowledgement, on time.monotonic()
    assert took < LONG / 2, took  # its timeout (0.25 s), not a whole ACK_WAIT past it


def test_a_half_written_answer_is_no_answer_and_the_hook_recalls_itself(config: Config) -> None:
    """A server ending while it wrote an answer (killed, or closing past CLOSE_WAIT) left a
    line without its end: json.loads raised out of ask(), and the hook injected nothing."""
    with answering_once(config, b'{"block": "from the ser'):
        block, took = hook(config, 1.5)

    assert block == HERE, took


def test_a_hook_alone_waits_for_its_own_slow_answer(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hook's own answer that took over STALLED_AFTER (the server reloading a big memory's
    vectors after an embed, a loaded machine) made its look say STALLED, and it gave up the
    answer about to come for a recall in its own process: a slow answer computes, and the
    server now says STALLED only for one on which the process is idle. The answer's thread,
    sharing this process with the test's, got less than IDLE_CPU (5% of a core) beside 8 busy
    loops and `make test` on 2 cores, and was said stalled until its wait for a core counted
    (test_recall_starved.py); a stuck one neither runs nor waits."""
    monkeypatch.setattr(recall_client, "ACK_WAIT", LONG / 2)  # as loaded() says
    with served(config, Held(each=0.7, busy=True)):
        block, took = hook(config, LONG)

    assert block == SERVED, took


def test_a_server_closing_behind_a_stalled_answer_lets_its_waiting_hooks_go(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the test above must not do: a server closing (an upgrade) while its thread is stuck
    on an answer, not yet given up on (STUCK), says STALLED to a waiting hook's look: CLOSING,
    "your answer comes", kept the hook waiting to its deadline for nothing."""
    monkeypatch.setattr(recall_workers, "STALLED_AFTER", 0.2)
    monkeypatch.setattr(recall_loop, "CODE_CHECK", 0.0)
    upgraded = threading.Event()
    stamp = recall_loop.code_stamp()
    monkeypatch.setattr(recall_loop, "code_stamp", lambda: "new" if upgraded.is_set() else stamp)
    recaller = Held()
    recaller.held.clear()
    with served(config, recaller), prompted(config):  # the thread is stuck on this one
        threading.Timer(0.1, upgraded.set).start()  # closing once the hook is acknowledged
        block, took = hook(config, LONG)

    assert block == HERE
    assert took < LONG / 2, took  # stalled from 0.2 s: not at its deadline


class Counted(Held):
    """Held, counting the prompts it answered."""

    def __init__(self) -> None:
        super().__init__()
        self.prompts: list[str] = []

    def recall(self, prompt: str, seen: object) -> Recall:
        self.prompts.append(prompt)
        return super().recall(prompt, seen)


def test_a_hook_gone_before_its_turn_costs_the_server_no_recall(config: Config) -> None:
    """Hooks that left behind a stalled answer (to recall in their own process) were each still
    answered once the thread came back: a recall for nobody (~25-110 ms) apiece, on the cores
    their own recalls needed."""
    recaller = Counted()
    recaller.held.clear()
    with served(config, recaller):
        first = prompted(config)  # the thread holds on this one
        asked(config, {"prompt": "gone", CONFIG: recall_server.config_key(config)}).close()
        recaller.held.set()
        with first, prompted(config) as last:
            answers = [recall_server.read_line(first), recall_server.read_line(last)]

    assert all(SERVED.encode() in answer for answer in answers)
    assert recaller.prompts == ["a prompt", "a prompt"]


def test_a_hook_stopped_before_its_request_does_not_stall_the_server(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The answering thread waited up to 5 s for the request of a hook acknowledged and then
    stopped before it sent it (its agent suspended, Ctrl-Z), and that wait counted as an
    answer: every other agent's hook was told STALLED and recalled in its own process. The
    wait is READ_WAIT (0.5 s) now, and counts as no answer. Both are made longer here (a wait
    for the stopped hook's request well past STALLED_AFTER): an answer given at once took over
    the 0.2 s STALLED_AFTER was, on a loaded machine, and was rightly said stalled; the ACK
    of a server thread in the test's process came past the hook's 0.3 s ACK_WAIT beside 8 busy
    loops, and the hook recalled in its own process (loaded: ACK_WAIT 5 s, STALLED_AFTER 2 s)."""
    loaded(monkeypatch)
    monkeypatch.setattr(recall_workers, "READ_WAIT", 4.0)  # twice STALLED_AFTER
    path = recall_server.socket_path(config)
    assert path is not None
    with served(config, Held()), socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as silent:
        silent.connect(str(path))
        assert silent.recv(1) == recall_server.ACK  # and then nothing, the hook stopped
        time.sleep(0.3)
        block, took = hook(config, LONG)

    assert block == SERVED, took


class Traced(Held):
    """Held, with the memory the server leaves its trace in (its recaller's configuration)."""

    def __init__(self, config: Config) -> None:
        super().__init__()
        self.config = config


def failing_once(monkeypatch: pytest.MonkeyPatch, name: str, exc: BaseException) -> None:
    """recall_workers' `name` raises `exc` at its first call, and then does its work."""
    real = getattr(recall_workers, name, None)
    calls: list[None] = []

    def once(*args: Any, **kwargs: Any) -> Any:
        calls.append(None)
        if len(calls) == 1:
            raise exc
        return real(*args, **kwargs) if real is not None else None

    monkeypatch.setattr(recall_workers, name, once, raising=False)


def test_an_answer_that_raises_is_traced_and_the_next_hook_is_answered(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exception out of an answer other than OSError or ValueError (a RuntimeError here;
    answer_for turns a recall's own Exception into an error answer, but not a BaseException
    such as SystemExit, nor one raised making that answer: MemoryError) ended the server's
    only answering thread: the hooks acknowledged after it waited to their deadline and
    injected nothing (stalled() took the ended thread for one whose answer was given), every
    prompt for the 30 s until the answer counted as stuck, and nothing said why. The hook it
    failed is let go (and recalls in its own process), the next is answered, and `memidx
    status` shows the failure as the agent hooks' last."""
    from memidx.cli.status_output import agent_line
    from memidx.index.failures import last_failure

    failing_once(monkeypatch, "answer_for", RuntimeError("a bad index"))
    with served(config, Traced(config)):
        with prompted(config) as first:
            assert recall_server.read_line(first) == b""  # let go: no answer comes
        block, took = hook(config, LONG)

    assert block == SERVED, took
    failure = last_failure(config.agent_hook_error_path)
    assert failure is not None
    assert "recall server: an answer failed: RuntimeError: a bad index" in agent_line(failure)


def divided_by_zero(*args: object) -> dict[str, object]:
    return {"answer": 1 / 0}


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_server_whose_answering_thread_ended_turns_hooks_away_and_closes(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The answering thread ended all the same (an answer raised, and so did its trace: no
    memory left): the server acknowledged hooks no thread would answer, each waited to its
    deadline. It now closes, saying why in the trace, and the hook recalls in its own
    process at once."""
    from memidx.index.failures import last_failure

    monkeypatch.setattr(recall_workers, "answer_for", divided_by_zero)
    failing_once(monkeypatch, "record_failure", MemoryError())
    with served(config, Traced(config)) as loop:
        with prompted(config) as first:
            assert recall_server.read_line(first) == b""  # let go: no answer comes
        block, took = hook(config, LONG)
        loop.join(LONG / 4)
        ended = not loop.is_alive()

    assert (block, ended) == (HERE, True)
    assert took < LONG / 2, took  # not at its deadline
    failure = last_failure(config.agent_hook_error_path)
    assert failure is not None and "answering thread ended" in failure.message, failure


class Failing:
    """A listening socket whose first accept fails as one with no descriptor left does."""

    def __init__(self, server: socket.socket) -> None:
        self.server, self.failed = server, False

    def accept(self) -> tuple[socket.socket, object]:
        if not self.failed:
            self.failed = True
            raise OSError(errno.EMFILE, os.strerror(errno.EMFILE))
        return self.server.accept()

    def settimeout(self, seconds: float) -> None:
        self.server.settimeout(seconds)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_failed_accept_does_not_end_the_server(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An accept that failed with an OSError other than its timeout (no descriptor left, each
    hook waiting its turn holding one; a connection aborted) ended the server's loop, and with
    it the server: every hook it had acknowledged was let go, and the next prompts paid for a
    new server's start. It is tried again."""
    loaded(monkeypatch)
    with served(config, Held(), Failing) as loop:
        block, took = hook(config, LONG)
        alive = loop.is_alive()

    assert (block, alive) == (SERVED, True), took


@contextmanager
def no_descriptor_left() -> Generator[None]:
    """Every descriptor this process may open taken (its limit lowered to a few more than
    it has open), as hooks waiting their turn take a server's; given back after."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    open_now = len(list(Path("/proc/self/fd").iterdir()))
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, open_now + 32), hard))
    taken: list[int] = []
    try:
        with suppress(OSError):
            while True:
                taken.append(os.open(os.devnull, os.O_RDONLY))
        yield
    finally:
        for fd in taken:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def answered_whole(config: Config) -> None:
    """A hook answered, to the end of its connection: the server is up, and has closed its
    descriptor of it."""
    with prompted(config) as conn:
        while conn.recv(65536):
            pass


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts descriptors in /proc")
def test_a_server_out_of_descriptors_for_a_while_acknowledges_the_hook_after(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no descriptor left, the failed accept was tried again only to end the server at
    once, untraced: its look at its own pid file (ours), which needs one, read nothing and
    took the server for another's; and the look at its code (CODE_CHECK), which needs one to
    list its modules, raised out of the loop. Every hook it had acknowledged was let go."""
    loaded(monkeypatch)
    monkeypatch.setattr(recall_loop, "CODE_CHECK", 0.0)  # looked at at each turn
    path = recall_server.socket_path(config)
    assert path is not None
    with served(config, Held(), owned=True) as loop, socket.socket(socket.AF_UNIX) as conn:
        answered_whole(config)
        conn.settimeout(LONG / 2)
        with no_descriptor_left():
            conn.connect(str(path))  # a hook comes: the server cannot take it
            time.sleep(0.2)  # ...for a while, four accepts and looks (within ACCEPT_RETRY_FOR)
        first = b""
        with suppress(OSError):
            first = conn.recv(1)
        alive = loop.is_alive()

    assert (first, alive) == (recall_server.ACK, True)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts descriptors in /proc")
def test_a_server_giving_up_on_its_socket_with_no_descriptor_left_traces_it(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server whose accepts failed ACCEPT_RETRY_FOR s in a row for want of a descriptor
    had none to write its trace with either: `memidx status` never said why it closed (the
    line went to the server's stderr, its log)."""
    from memidx.index.failures import last_failure

    loaded(monkeypatch)
    monkeypatch.setattr(recall_loop, "ACCEPT_RETRY_FOR", 0.1)
    path = recall_server.socket_path(config)
    assert path is not None
    with served(config, Traced(config), owned=True) as loop, socket.socket(socket.AF_UNIX) as conn:
        answered_whole(config)
        with no_descriptor_left():
            conn.connect(str(path))
            loop.join(LONG / 2)
            ended = not loop.is_alive()

    failure = last_failure(config.agent_hook_error_path)
    assert ended
    assert failure is not None and "its socket failed" in failure.message, failure


class Sometimes:
    """A listening socket whose accepts fail now and then (no descriptor left for a moment),
    each failure alone: the accept after it finds no hook waiting (its timeout)."""

    def __init__(self, server: socket.socket) -> None:
        self.server, self.turns = server, 0

    def accept(self) -> tuple[socket.socket, object]:
        self.turns += 1
        if self.turns <= 20:
            if self.turns % 2:
                raise OSError(errno.EMFILE, os.strerror(errno.EMFILE))
            raise TimeoutError
        return self.server.accept()

    def settimeout(self, seconds: float) -> None:
        self.server.settimeout(seconds)


def test_accepts_failed_now_and_then_do_not_add_up_to_the_servers_end(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The failures counted every failed accept since the last one taken, the quiet turns
    between them (timeouts: no hook waiting) aside: a server whose accepts failed once now
    and then closed as if its socket had failed for ACCEPT_RETRY_FOR s in a row."""
    loaded(monkeypatch)
    monkeypatch.setattr(recall_loop, "ACCEPT_RETRY_FOR", 0.01)
    with served(config, Held(), Sometimes) as loop:
        block, took = hook(config, LONG)  # acknowledged once the 20 turns are over (~0.5 s)
        alive = loop.is_alive()

    assert (block, alive) == (SERVED, True), took
