"""commit.lock (one memidx commit or pull at a time in a clone) is waited for within a bound by
every holder-to-be: `share`'s merge and the purge's rewrite took it with no bound, so a memidx
process that hung holding it (stopped with Ctrl-Z) held `make sync` and `forget` for ever."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import GitBusy
from memidx.git import commit as commit_module
from memidx.git.rewrite import rewrite_unpushed
from memidx.memory import share as share_module
from memidx.memory.share import share
from memidx.portable import file_lock
from tests.cli.test_forget import clones


def _behind_a_hung_holder(lock: Path, run: Callable[[], object]) -> list[BaseException]:
    """What `run` raised while a hung holder kept `lock`; it must end within 15 s."""
    raised: list[BaseException] = []

    def runs() -> None:
        try:
            run()
        except BaseException as exc:  # noqa: BLE001 - the test looks at it
            raised.append(exc)

    with file_lock(lock):
        thread = threading.Thread(target=runs, daemon=True)
        thread.start()
        thread.join(timeout=15)
        hung = thread.is_alive()
    thread.join(timeout=30)
    assert not hung, "it waited for commit.lock for ever"
    return raised


def test_share_gives_up_on_a_hung_commit_lock_holder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = clones(tmp_path)
    one.note("from-one.md", "From one", "a note machine one pushed")
    one.commit("one's note")
    one.git("push", "-q", "origin", "main")
    head = two.git("rev-parse", "HEAD").strip()
    config = load_config(two.root, env={})
    monkeypatch.setattr(share_module, "WAIT_SECONDS", 0.5, raising=False)  # none: no bound
    raised = _behind_a_hung_holder(
        config.state_dir / "commit.lock", lambda: share(config, sleep=lambda _: None)
    )
    [error] = raised
    assert isinstance(error, GitBusy) and "commit.lock" in error.message, raised
    assert "nothing was pulled or pushed" in error.message
    assert two.git("rev-parse", "HEAD").strip() == head  # nothing merged


def test_a_purge_rewrite_gives_up_on_a_hung_commit_lock_holder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, _ = clones(tmp_path)
    config = load_config(one.root, env={})
    monkeypatch.setattr(commit_module, "WAIT_SECONDS", 0.5)
    raised = _behind_a_hung_holder(
        config.state_dir / "commit.lock", lambda: rewrite_unpushed(config, ["notes"], {}, [])
    )
    [error] = raised
    assert isinstance(error, GitBusy) and "commit.lock" in error.message, raised
    assert "the unpushed commits were not rewritten" in error.message
