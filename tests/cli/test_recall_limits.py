"""The recall server's limits and failures said where `memidx status` reads them: a recall's
own error (a corrupt or locked index), hooks past the bound of those waiting, accepts that
fail for longer than a hook gives a server before it ends it as wedged, and a model that
cannot be loaded. In-process, as in test_recall_stall: the server's loop in a thread (or
called here), its answers given by a recaller the test holds; the hooks are `actions._recall`
calls, whose own recall is given too."""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from memidx.agents import recall_client
from memidx.agents.recall import Recall
from memidx.config import Config
from tests.cli.test_recall_stall import (
    HERE,
    LONG,
    Traced,
    hook,
    loaded,
    never_kill,
    no_start,
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
