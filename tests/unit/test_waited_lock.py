"""A writer waiting for a lock another process holds says so on a terminal after SAY_AFTER
seconds, and stays quiet elsewhere; the lock still times out with the whole wait named."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pytest

from memidx import waited_lock as module
from memidx.errors import MemidxError
from memidx.portable import file_lock


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def held_for(lock: Path, seconds: float) -> threading.Thread:
    """A thread holding `lock` (its own open file: flock conflicts within one process too)."""
    taken = threading.Event()

    def hold() -> None:
        with file_lock(lock):
            taken.set()
            threading.Event().wait(seconds)

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    assert taken.wait(5)
    return thread


@pytest.mark.parametrize("terminal", [True, False])
def test_a_long_wait_is_said_on_a_terminal_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, terminal: bool
) -> None:
    monkeypatch.setattr(module, "SAY_AFTER", 0.2)
    err = Terminal() if terminal else io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    lock = tmp_path / "index.sqlite.lock"
    holder = held_for(lock, 0.5)
    with module.waited_lock(lock, 5.0, "a build"):
        pass
    holder.join(5)
    said = err.getvalue()
    if terminal:
        assert said == f"memidx: waiting up to 4.8 s more for {lock} (a build)\n"
    else:
        assert said == ""


def test_a_lock_taken_soon_is_said_nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    err = Terminal()
    monkeypatch.setattr("sys.stderr", err)
    with module.waited_lock(tmp_path / "a.lock", 60.0, "a build"):
        pass
    assert err.getvalue() == ""


def test_a_lock_never_let_go_names_the_whole_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(module, "SAY_AFTER", 0.1)
    monkeypatch.setattr("sys.stderr", Terminal())
    lock = tmp_path / "a.lock"
    holder = held_for(lock, 1.0)
    said = r"held .*a\.lock for 0\.3 s \(a build\)"
    with pytest.raises(MemidxError, match=said), module.waited_lock(lock, 0.3, "a build"):
        pass
    holder.join(5)
