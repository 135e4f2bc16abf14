"""The recall server's suspect mark (memidx/agents/recall_wedge.py) against a server that
comes back: a hook ends a server only when it failed to acknowledge twice with no
acknowledgement in between. In-process: the server's answers are given, its checks (pid file,
lock) pass, and the kill is recorded, not sent."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memidx.agents import actions, recall_server, recall_wedge
from memidx.agents.recall import Recall
from memidx.config import Config

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
    """What recall_server.start does here: nothing."""


class Given:
    """recall_server.ask_waiting, answering `answer`, heard from now (as ask() says of each
    answer but NO_ACK)."""

    def __init__(self, answer: dict[str, object]) -> None:
        self.answer = answer

    def __call__(self, *args: object, **kwargs: object) -> dict[str, object]:
        if self.answer.get("error") == recall_server.NO_ACK:
            return self.answer
        return {**self.answer, recall_server.HEARD: time.time()}


@pytest.fixture
def killed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The pids hooks ended; the server named in recall.pid holds its lock."""
    ended: list[int] = []
    monkeypatch.setattr("memidx.portable.kill", ended.append)

    def held(config: Config) -> bool:  # the server's lock, until it is ended
        return not ended

    monkeypatch.setattr(recall_wedge, "starting", held)
    monkeypatch.setattr(recall_server, "start", no_start)
    monkeypatch.setattr("memidx.agents.recall.Recaller", Here)
    yield ended


def hooks(
    config: Config, answers: list[dict[str, object]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One prompt hook per answer, each over SUSPECT_AFTER after the one before (the mark
    made older, not waited for)."""
    folder = config.state_dir / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "recall.pid").write_text(f"{PID}\n", encoding="utf-8")
    for answer in answers:
        mark = folder / recall_wedge.SUSPECT
        if mark.exists():
            earlier = time.time() - recall_wedge.SUSPECT_AFTER - 1
            os.utime(mark, (earlier, earlier))
        monkeypatch.setattr(recall_server, "ask_waiting", Given(answer))
        actions._recall(config, "a prompt", [], time.monotonic() + 1.5)  # pyright: ignore[reportPrivateUsage]


@pytest.fixture
def config(tmp_path: Path) -> Config:
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
    """recall_server.ask_waiting for a hook the server acknowledged before it stopped: while
    it waits, `meanwhile` runs (another hook's whole recall), then it is let go, no answer."""

    def __init__(self, meanwhile: Callable[[], object]) -> None:
        self.meanwhile = meanwhile

    def __call__(self, *args: object, **kwargs: object) -> dict[str, object]:
        heard = time.time()  # the acknowledgement, before the server stopped
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
        monkeypatch.setattr(recall_server, "ask_waiting", Given(NO_ACK))
        actions._recall(config, "b", [], time.monotonic() + 1.5)  # pyright: ignore[reportPrivateUsage]

    monkeypatch.setattr(recall_server, "ask_waiting", HeardBefore(hook_b))
    actions._recall(config, "a", [], time.monotonic() + 1.5)  # pyright: ignore[reportPrivateUsage]
    hooks(config, [NO_ACK], monkeypatch)  # hook C, over SUSPECT_AFTER after B

    assert killed == [PID]
