"""The recall server's limits and failures said where `memidx status` reads them: a recall's
own error (a corrupt or locked index), hooks past the bound of those waiting, accepts that
fail for longer than a hook gives a server before it ends it as wedged, and a model that
cannot be loaded. In-process, as in test_recall_stall: the server's loop in a thread (or
called here), its answers given by a recaller the test holds; the hooks are `actions._recall`
calls, whose own recall is given too."""

from __future__ import annotations

import errno
import os
import shutil
import socket
import sqlite3
import tempfile
import threading
from collections.abc import Generator, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from memidx.agents import model_failed, recall_client, recall_loop, recall_server, recall_workers
from memidx.agents.recall import Recall, Recaller
from memidx.config import Config
from memidx.errors import ModelError
from memidx.frozen import replace
from tests.cli.test_recall_stall import (
    HERE,
    LONG,
    Traced,
    hook,
    loaded,
    never_kill,
    no_start,
    prompted,
    served,
)


@pytest.fixture
def config(monkeypatch: pytest.MonkeyPatch) -> Iterator[Config]:
    """A memory in a folder short enough for its socket, whose hooks start no server and
    recall at once in their own process (HERE), and never end a server."""
    monkeypatch.setattr(recall_client, "start", no_start)
    monkeypatch.setattr("memidx.portable.kill", never_kill)
    monkeypatch.setattr("memidx.agents.recall.Recaller", Here)
    folder = Path(tempfile.mkdtemp(prefix="mx-"))
    yield Config(root=folder, index_path=folder / ".memidx" / "index.sqlite")
    shutil.rmtree(folder)


class Here:
    """The hook's own recall, at once."""

    def __init__(self, config: Config) -> None:
        pass

    def recall(self, prompt: str, seen: object) -> Recall:
        return Recall(HERE, ())


def traced(config: Config, words: str) -> list[str]:
    """The lines of the memory's agent hooks' trace that hold `words`."""
    path = config.agent_hook_error_path
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [line for line in lines if words in line and "\trecall server\t" in line]


class Corrupt(Traced):
    """A server's recaller whose index is damaged: every recall raises as SQLite does."""

    def recall(self, prompt: str, seen: object) -> Recall:
        raise sqlite3.DatabaseError("database disk image is malformed")


def test_a_recalls_own_error_is_traced_once_and_each_hook_recalls_itself(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A recall that raised (a corrupt or locked index) was answered to the hook as an error
    and said nowhere else: `memidx status` showed nothing while every prompt failed over to
    its own process. It is traced, once for many prompts (the trace is not flooded), and
    each hook still recalls in its own process."""
    loaded(monkeypatch)
    with served(config, Corrupt(config)):
        blocks = [hook(config, LONG)[0] for _ in range(3)]

    assert blocks == [HERE] * 3
    lines = traced(config, "a recall failed: DatabaseError")
    assert len(lines) == 1, lines
    assert "database disk image is malformed" in lines[0]


class Waiting(Traced):
    """Traced, its answers held; `began` is set as the first begins."""

    def __init__(self, config: Config) -> None:
        super().__init__(config)
        self.began = threading.Event()
        self.held.clear()

    def recall(self, prompt: str, seen: object) -> Recall:
        self.began.set()
        return super().recall(prompt, seen)


@contextmanager
def answering_one(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> Generator[tuple[Path, Waiting, ExitStack]]:
    """A server whose queue holds 3 hooks at most, answering one hook it holds (never judged
    stalled): the socket's path, its recaller (`held.set()` lets the answer go) and the hooks'
    stack."""
    loaded(monkeypatch)
    monkeypatch.setattr(recall_workers, "STALLED_AFTER", LONG)  # held, never stalled
    monkeypatch.setattr(recall_workers, "MAX_WAITING", 3)
    path = recall_server.socket_path(config)
    assert path is not None
    recaller = Waiting(config)
    with served(config, recaller), ExitStack() as hooks:
        hooks.enter_context(prompted(config))  # the one being answered
        assert recaller.began.wait(LONG)
        yield path, recaller, hooks


def test_a_flood_of_hooks_past_the_bound_is_turned_away_at_once_and_traced_once(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hooks waiting for an answering thread were queued without a bound: a flood (or
    a slow answer) grew the queue, a descriptor each, to the process's limit. Past
    MAX_WAITING, each is turned away at once (and recalls in its own process), traced once;
    the hooks within it are answered."""
    with answering_one(config, monkeypatch) as (path, recaller, hooks):
        within = [hooks.enter_context(prompted(config)) for _ in range(3)]
        firsts: list[bytes] = []
        for _ in range(10):  # the flood
            flooding = hooks.enter_context(socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
            flooding.settimeout(LONG / 2)
            flooding.connect(str(path))
            firsts.append(flooding.recv(1))
        block, took = hook(config, LONG)
        recaller.held.set()
        answers = [recall_server.read_line(conn) for conn in within]

    assert firsts == [recall_server.CLOSING] * 10
    assert block == HERE and took < LONG / 2, took
    assert all(answer.endswith(b"\n") and b"error" not in answer for answer in answers), answers
    assert len(traced(config, "3 hooks waited for an answer")) == 1


def test_a_hook_waiting_its_turn_keeps_it_when_the_bound_is_reached(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past MAX_WAITING the server said STALLED to every connection, a waiting hook's look
    (recall_client._answering, every PROBE_EVERY s) too: it took the busy server for a stuck
    one, gave up its place near the front and recalled in its own process, with every other
    hook waiting then (the looks fill the queue first: 20 hooks make 100 a second). The
    server says CLOSING (it takes no more, and answers those it took): a new hook is turned
    away, a waiting one keeps waiting."""
    with answering_one(config, monkeypatch) as (path, recaller, hooks):
        for _ in range(3):  # the bound reached
            hooks.enter_context(prompted(config))
        answering = recall_client._answering(path, LONG / 2)  # pyright: ignore[reportPrivateUsage]
        block, took = hook(config, LONG)
        recaller.held.set()

    assert answering
    assert block == HERE and took < LONG / 2, took


class Clock:
    """time for recall_loop: monotonic() is the test's, and sleep() moves it on."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class NoDescriptor:
    """A listening socket whose accepts fail (EMFILE) until the clock reaches `until`, then
    find no hook waiting (their timeout)."""

    def __init__(self, clock: Clock, until: float) -> None:
        self.clock, self.until = clock, until

    def accept(self) -> tuple[socket.socket, object]:
        if self.clock.now < self.until:
            raise OSError(errno.EMFILE, os.strerror(errno.EMFILE))
        self.clock.sleep(0.05)  # its timeout
        raise TimeoutError

    def settimeout(self, seconds: float) -> None:
        pass


def run_loop(config: Config, monkeypatch: pytest.MonkeyPatch, until: float) -> tuple[float, bool]:
    """The server's loop on a socket out of descriptors until `until` on the test's clock,
    ended by its pid file no longer its own once the accepts find none waiting: when it
    ended on that clock, and whether it gave up on its socket itself."""
    clock = Clock()
    monkeypatch.setattr(
        recall_loop, "time", SimpleNamespace(monotonic=clock.monotonic, sleep=clock.sleep)
    )
    recovered: list[bool] = []
    socket_ = NoDescriptor(clock, until)

    def ours() -> bool:
        recovered.append(clock.now >= until)
        return recovered.count(True) < 2  # one quiet accept, then it is no longer ours

    recaller = cast(Recaller, Traced(config))
    loop = recall_loop._loop  # pyright: ignore[reportPrivateUsage]
    loop(cast(socket.socket, socket_), recaller, 1e9, "key", ours)
    return clock.now, not any(recovered[-1:])


def test_a_server_out_of_descriptors_gives_up_before_a_hook_would_end_it_as_wedged(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its failed accepts were tried again for ~5 s, while hooks that found it unacknowledging
    twice, SUSPECT_AFTER (1 s) apart, ended it as wedged: untraced, and its descriptors' want
    looked like a hang. It gives up (traced) before a second hook could find it so: within
    SUSPECT_AFTER - ACK_WAIT of its first failure, on a clock the test moves."""
    ended, gave_up = run_loop(config, monkeypatch, until=float("inf"))

    assert gave_up
    assert ended < recall_server.SUSPECT_AFTER - recall_server.ACK_WAIT, ended
    assert len(traced(config, "its socket failed")) == 1


def test_a_server_out_of_descriptors_just_within_its_retries_goes_on(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The boundary's other side: accepts that fail until just before ACCEPT_RETRY_FOR has
    passed are waited out, and the server goes on (untraced)."""
    until = recall_loop.ACCEPT_RETRY_FOR - recall_loop.ACCEPT_PAUSE / 2
    ended, gave_up = run_loop(config, monkeypatch, until=until)

    assert not gave_up and ended >= until
    assert traced(config, "its socket failed") == []


def model_config(root: Path) -> Config:
    """A memory whose packaged model is not where its configuration says (an empty folder):
    it cannot be loaded."""
    (root / "models").mkdir()
    return Config(
        root=root, index_path=root / ".memidx" / "index.sqlite", models_path=root / "models"
    )


def served_briefly(config: Config) -> None:
    """recall_loop.serve_on as `memidx agent serve` runs it: ModelError out of it."""
    path = recall_server.socket_path(config)
    assert path is not None
    with pytest.raises(ModelError):
        recall_loop.serve_on(config, path, 0.1)


def test_a_server_that_cannot_load_its_model_says_so_in_status_once(tmp_path: Path) -> None:
    """A model that fails to load (damaged, not installed) was said only in the server's log,
    `recall-server.log`, at each server the hooks started (one each 10 s): `memidx status`
    showed nothing. It is the agent hooks' last failure, with what to do, once for the
    servers started after it; a server that loads its model forgets it."""
    from memidx.cli.status_output import agent_line
    from memidx.index.failures import last_failure

    config = model_config(tmp_path)
    served_briefly(config)
    served_briefly(config)

    failure = last_failure(config.agent_hook_error_path)
    assert failure is not None
    line = agent_line(failure)
    assert "recall server: cannot load its model" in line
    assert "memidx model install" in line, line
    assert len(traced(config, "cannot load its model")) == 1


def test_a_model_that_fails_to_load_with_no_memidx_error_names_the_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A piece of onnxruntime missing raises what onnxruntime raises: its line still says
    what to do."""

    def broken(config: Config, *, warm: bool = False) -> object:
        raise ImportError("libonnxruntime_providers_shared.so: cannot open shared object file")

    monkeypatch.setattr("memidx.agents.recall.query_embedder", broken)
    config = model_config(tmp_path)
    path = recall_server.socket_path(config)
    assert path is not None
    with pytest.raises(ImportError):
        recall_loop.serve_on(config, path, 0.1)

    lines = traced(config, "cannot load its model")
    assert len(lines) == 1 and "ImportError: libonnxruntime" in lines[0]
    assert "install`)" in lines[0], lines


def test_a_model_that_cannot_load_is_not_said_to_leave_hooks_their_own_recall(
    tmp_path: Path,
) -> None:
    """The server's line said `so hooks recall in their own process`: a hook's own recall
    loads the same model and fails as the server did (ModelError, nothing injected, as a
    prompt to a memory whose model is not installed showed). The line says no prompt is
    recalled until the model loads."""
    from memidx.agents.recall import Recaller as Own  # the hook's, unpatched here
    from memidx.config import load_config
    from tests.helpers import started_memory

    root = started_memory(tmp_path).root
    (tmp_path / "models").mkdir()
    config = replace(load_config(root), models_path=tmp_path / "models")
    served_briefly(config)

    with pytest.raises(ModelError):
        Own(config).recall("how does the first note of this memory start", ())
    lines = traced(config, "cannot load its model")
    assert len(lines) == 1 and "recall in their own process" not in lines[0], lines
    assert "so no prompt is recalled until it loads" in lines[0], lines


def test_the_model_failed_mark_follows_no_link(tmp_path: Path) -> None:
    """The mark was made with Path.touch(), which follows a link: one left there made a file
    where it pointed, outside memidx's folder."""
    config = model_config(tmp_path)
    mark = recall_server.server_folder(config) / model_failed.MODEL_FAILED
    mark.parent.mkdir(parents=True, exist_ok=True)
    outside = tmp_path / "outside.txt"
    mark.symlink_to(outside)

    served_briefly(config)

    assert not outside.exists()
    assert len(traced(config, "cannot load its model")) == 1


def test_a_server_whose_model_loads_is_not_ended_by_a_folder_where_its_mark_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that loads its model forgets the failure mark; a folder of that name (no
    file memidx wrote) made the unlink raise, so every server ended as its model loaded."""

    def loaded(self: object) -> object:
        return object()

    monkeypatch.setattr("memidx.agents.recall.Recaller.embedder", loaded)
    config = model_config(tmp_path)
    mark = recall_server.server_folder(config) / model_failed.MODEL_FAILED
    mark.mkdir(parents=True)
    path = recall_server.socket_path(config)
    assert path is not None

    recall_loop.serve_on(config, path, 0.1)  # idle 0.1 s, then ends as a server does

    assert mark.is_dir()
