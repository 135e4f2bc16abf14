"""The MCP server's search right after its `file_turn` into a brand-new memory: the filing
goes to the log alone and starts a background build (a hurried writer never fills an index),
and the search answered "no index ... (run `make ingest` ...)", as if nothing had been filed.
It now waits a moment for the build under way and finds the turn; a build that takes longer
is said as one, and with no build under way the reader's refusal is as it was."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import cast

import pytest

import memidx.embed.installed
import memidx.git.process
from memidx.config import Config, load_config
from memidx.embed.running import embedding
from memidx.errors import IndexUnusable
from memidx.mcp import answers, building
from memidx.mcp.warm import WarmIndex
from memidx.memory.fill_sync import fill_started
from memidx.memory.head_sync import sync_to_head
from memidx.portable import file_lock
from tests.helpers import dead_pid

TURN = "the zebra crossing is painted on Fridays"
# BUILD_WAIT here: a refusal at once takes ms, and took past 1 s on a loaded machine (the
# index opened, the log looked at); one that waits for a build takes the whole wait
LONG_WAIT, AT_ONCE = 30.0, 10.0
LIVES_UNTIL_EOF = "import sys; sys.stdin.read()"  # a build process, until its stdin closes


def _memory(root: Path) -> Config:
    """A memory (no git) of one note, never indexed."""
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "a.md").write_text("# Alpha\n\nalpha words\n")
    return load_config(root)


def _no_model(_config: Config) -> str:
    return "no model here"  # what the filing starts is then a detached `memidx sync`


def _background(
    monkeypatch: pytest.MonkeyPatch, delay: float | None, pid: int | None = None
) -> list[threading.Thread]:
    """What the filing starts runs in a thread after `delay` seconds (never, when None), as the
    detached `memidx sync` does a moment after its process starts; its process is this one
    (it lives on), or `pid`."""
    started: list[threading.Thread] = []

    def spawn(argv: list[str], _log: Path) -> int:
        root = Path(argv[argv.index("-C") + 1])
        if delay is not None and not started:
            wait = delay

            def build() -> None:
                time.sleep(wait)
                sync_to_head(load_config(root))

            started.append(threading.Thread(target=build))
            started[0].start()
        return os.getpid() if pid is None else pid

    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "1")
    monkeypatch.setattr(memidx.embed.installed, "model_problem", _no_model)
    monkeypatch.setattr(memidx.git.process, "spawn_detached", spawn)
    return started


def _a_model(_config: Config) -> str | None:
    return None  # what the filing starts is then the background embed


def _hits(config: Config, query: str) -> list[str]:
    warm = WarmIndex(config)
    try:
        found = answers.search(warm, query, mode="bm25")
    finally:
        warm.close()
    hits = cast(list[dict[str, object]], found["hits"])
    return [str(hit["snippet"]) for hit in hits]


def test_a_search_after_a_turn_filed_into_a_new_memory_finds_it_once_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    builds = _background(monkeypatch, delay=0.3)
    config = _memory(tmp_path)

    filed = answers.file_turn(config, {"text": TURN, "agent": "t"})

    assert filed["duplicate"] is False and not config.index_path.exists()  # in the log alone
    assert any("zebra** **crossing" in text for text in _hits(config, "zebra crossing"))
    builds[0].join()


def test_a_build_that_takes_longer_is_said_as_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _background(monkeypatch, delay=None)  # started, and not there yet
    monkeypatch.setattr(building, "BUILD_WAIT", 0.3)
    config = _memory(tmp_path)
    answers.file_turn(config, {"text": TURN, "agent": "t"})

    with pytest.raises(IndexUnusable) as refused:
        _hits(config, "zebra crossing")

    assert refused.value.message.endswith("is being built in the background (every note, "
                                          "and what was filed in the log meanwhile)")  # fmt: skip
    assert (
        refused.value.hint == "search again in a moment: what was filed is found once it is built"
    )


def test_with_no_build_under_way_a_search_is_refused_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With MEMIDX_HOOK_EMBED=0 the filing starts nothing: no wait, the refusal as it was."""
    _background(monkeypatch, delay=None)
    monkeypatch.setattr(building, "BUILD_WAIT", LONG_WAIT)  # a wait shows whole on any load
    monkeypatch.setenv("MEMIDX_HOOK_EMBED", "0")
    config = _memory(tmp_path)
    answers.file_turn(config, {"text": TURN, "agent": "t"})

    began = time.monotonic()
    with pytest.raises(IndexUnusable) as refused:
        _hits(config, "zebra crossing")

    assert time.monotonic() - began < AT_ONCE
    assert refused.value.message.startswith("no index at ")


def _creation_lock(config: Config) -> AbstractContextManager[object]:
    return file_lock(Path(f"{config.index_path}.lock"))  # an ingest or a rebuild filling it


def _fill_sync(config: Config) -> AbstractContextManager[object]:
    fill_started(config.state_dir, os.getpid())  # the detached sync a filing started
    return contextlib.nullcontext()


def _background_embed(config: Config) -> AbstractContextManager[object]:
    return embedding(config.state_dir, durable=False)


@pytest.mark.parametrize("build", [_creation_lock, _fill_sync, _background_embed])
def test_a_build_under_way_with_nothing_filed_is_waited_for_and_said(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    build: Callable[[Config], AbstractContextManager[object]],
) -> None:
    """Each sign of a build under way, with no filing in the log alone to go by (a fresh
    clone's `memidx ingest`, a background embed or the detached sync): only a recent filing
    was ever tested, and a search that no longer looked at any of these passed every test."""
    monkeypatch.setattr(building, "BUILD_WAIT", 0.2)
    config = _memory(tmp_path)
    config.state_dir.mkdir()

    with build(config), pytest.raises(IndexUnusable) as refused:
        _hits(config, "alpha")

    assert "is being built in the background" in refused.value.message


def test_the_index_a_search_waited_for_is_kept_open_for_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file's identity was taken before the wait (none: no file yet), so the next call
    took the built index for another file, opened it again and dropped the vectors."""
    builds = _background(monkeypatch, delay=0.3)
    config = _memory(tmp_path)
    answers.file_turn(config, {"text": TURN, "agent": "t"})
    warm = WarmIndex(config)
    try:
        first = warm.store()  # waits for the build
        assert warm.store() is first
    finally:
        warm.close()
    builds[0].join()


def test_a_filing_whose_build_is_not_running_is_refused_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process the filing started has ended (or never started): a search said "being
    built" after waiting 5 s, for the 10 s after every filing, with no build running."""
    _background(monkeypatch, delay=None, pid=dead_pid())
    monkeypatch.setattr(building, "BUILD_WAIT", LONG_WAIT)  # a wait shows whole on any load
    config = _memory(tmp_path)
    answers.file_turn(config, {"text": TURN, "agent": "t"})

    began = time.monotonic()
    with pytest.raises(IndexUnusable) as refused:
        _hits(config, "zebra crossing")

    assert time.monotonic() - began < AT_ONCE
    assert refused.value.message.startswith("no index at ")


def test_a_build_that_dies_is_waited_for_no_longer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build's process ended without building the index: the search waited the whole
    BUILD_WAIT (5 s) for it all the same."""
    # it lives until the test ends it 0.3 s into the search: a 0.3 s sleep from its start had
    # ended before the search began on a loaded machine (the memory made and the turn filed)
    builder = subprocess.Popen([sys.executable, "-c", LIVES_UNTIL_EOF], stdin=subprocess.PIPE)
    assert builder.stdin is not None
    monkeypatch.setattr(building, "BUILD_WAIT", 30.0)  # its whole wait: far past its life
    try:
        _background(monkeypatch, delay=None, pid=builder.pid)
        config = _memory(tmp_path)
        answers.file_turn(config, {"text": TURN, "agent": "t"})

        began = time.monotonic()
        threading.Timer(0.3, builder.stdin.close).start()
        with pytest.raises(IndexUnusable) as refused:
            _hits(config, "zebra crossing")

        assert 0.2 < time.monotonic() - began < 15.0  # waited while it lived, not after
        assert refused.value.message.startswith("no index at ")
    finally:
        builder.kill()
        builder.wait(10)


def test_the_background_embed_a_filing_starts_is_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a model, the filing starts the background embed, which marks itself only once it
    runs: before that, a search now sees the process the filing named."""
    _background(monkeypatch, delay=None)
    monkeypatch.setattr(memidx.embed.installed, "model_problem", _a_model)
    monkeypatch.setattr(building, "BUILD_WAIT", 0.2)
    config = _memory(tmp_path)
    answers.file_turn(config, {"text": TURN, "agent": "t"})

    with pytest.raises(IndexUnusable) as refused:
        _hits(config, "zebra crossing")

    assert "is being built in the background" in refused.value.message
