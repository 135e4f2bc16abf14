"""Each agent session keeps its own state file (memidx/agents/session.py): ids were cut to 120
characters and their unusual characters replaced, so two sessions could share one file, and
one's injected hits went missing from, or came back in, the other."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.agents.session import Where, session_path, session_state
from memidx.config import Config

UUID = "0f6b2c1e-9a4d-4c3b-8e2f-5d7a1b9c3e40"


def _config(tmp_path: Path) -> Config:
    return Config(root=tmp_path, index_path=tmp_path / ".memidx" / "index.sqlite")


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("s" * 120 + "-a", "s" * 120 + "-b"),  # differing past the 120th character
        ("task/1", "task:1"),  # differing in a character a file name cannot hold
        ("task 1", "task_1"),  # one replaced character against the one that replaced it
        ("Session-A", "session-a"),  # only in case: one file where case is ignored
    ],
)
def test_two_sessions_keep_separate_states(tmp_path: Path, one: str, other: str) -> None:
    for order, (first_id, second_id) in enumerate(((one, other), (other, one))):
        (memory := tmp_path / f"memory{order}").mkdir()  # memidx never makes a memory's folder
        config = _config(memory)
        first = session_state(config, Where("claude-code", first_id, str(tmp_path)))
        first.add("injected", "note:notes/wsl.md")
        first.save()

        second = session_state(config, Where("claude-code", second_id, str(tmp_path)))

        assert second.keys("injected") == [], (first_id, second_id)
    config = _config(tmp_path)
    mine, theirs = (session_path(config, "claude-code", s) for s in (one, other))
    assert mine.name.lower() != theirs.name.lower()
    assert len(mine.name) < 120 and len(theirs.name) < 120


def test_a_plain_session_id_keeps_the_name_it_always_had(tmp_path: Path) -> None:
    path = session_path(_config(tmp_path), "codex", UUID)

    assert path.name == f"{UUID}.json"


def test_a_state_saved_under_the_former_name_is_read_until_saved_under_the_new(
    tmp_path: Path,
) -> None:
    """An upgrade in the middle of a session repeats none of its hits."""
    config = _config(tmp_path)
    session = "Task/1"
    sessions = tmp_path / ".memidx" / "agents" / "gemini" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "Task_1.json").write_text('{"injected": ["note:notes/wsl.md"]}')
    where = Where("gemini", session, str(tmp_path))

    state = session_state(config, where)
    assert state.keys("injected") == ["note:notes/wsl.md"]
    state.add("injected", "note:notes/git.md")
    state.save()

    again = session_state(config, where)
    assert again.keys("injected") == ["note:notes/wsl.md", "note:notes/git.md"]
    assert state.path.name != "Task_1.json"


def test_a_session_start_removes_the_states_no_hook_touched_for_keep_days(tmp_path: Path) -> None:
    """A state and a lock per session, kept for ever, grew by thousands a year."""
    import os

    from memidx.agents.session import KEEP_DAYS, prune_sessions

    config = _config(tmp_path)
    now = 2_000_000_000.0
    old = now - KEEP_DAYS * 86_400 - 60

    def state(session: str, age: float, lock_age: float | None = None) -> Path:
        path = session_path(config, "codex", session)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
        os.utime(path, (age, age))
        if lock_age is not None:
            lock = path.with_suffix(".lock")
            lock.touch()
            os.utime(lock, (lock_age, lock_age))
        return path

    stale = state("stale", old, lock_age=old)
    fresh = state("fresh", now - 3_600, lock_age=old)  # a lock as old as its first hook
    orphan = state("orphan", now).with_suffix(".lock")
    orphan.with_suffix(".json").unlink()
    orphan.touch()
    os.utime(orphan, (old, old))
    folder = stale.parent
    not_a_state = folder / "notes.txt"  # no kind of file memidx keeps there: left alone
    not_a_state.write_text("mine")
    os.utime(not_a_state, (old, old))
    (folder / "dir.json").mkdir()  # not a file: left alone
    elsewhere = session_path(config, "claude-code", "stale")  # another agent's: its own start
    elsewhere.parent.mkdir(parents=True)
    elsewhere.write_text("{}")
    os.utime(elsewhere, (old, old))

    prune_sessions(config, "codex", now)

    assert not stale.exists() and not stale.with_suffix(".lock").exists()
    assert fresh.exists() and fresh.with_suffix(".lock").exists()
    assert not orphan.exists()
    assert not_a_state.exists() and (folder / "dir.json").is_dir()
    assert elsewhere.exists()
    prune_sessions(_config(tmp_path / "none"), "codex", now)  # no folder: nothing to do


def test_a_session_start_hook_prunes_its_agents_old_states(tmp_path: Path) -> None:
    import os

    from memidx.agents import actions
    from memidx.errors import IndexUnusable

    config = _config(tmp_path)
    stale = session_path(config, "gemini", "left-last-year")
    stale.parent.mkdir(parents=True)
    stale.write_text("{}")
    os.utime(stale, (1_000_000_000, 1_000_000_000))

    with pytest.raises(IndexUnusable):  # no index: no digest (the hook fails open), pruned first
        actions.session_start(config, Where("gemini", UUID, str(tmp_path)))

    assert not stale.exists()


def test_pruning_leaves_a_session_whose_hook_holds_its_lock(tmp_path: Path) -> None:
    """Its lock was removed under the hook holding it: the session's next hook took a lock of
    its own while the first still ran, and both injected the same hit."""
    import os

    from memidx.agents.session import KEEP_DAYS, prune_sessions
    from memidx.portable import file_lock

    config = _config(tmp_path)
    now = 2_000_000_000.0
    old = now - KEEP_DAYS * 86_400 - 60
    held, idle = (session_path(config, "codex", name) for name in ("held", "idle"))
    held.parent.mkdir(parents=True)
    for path in (held, idle):
        path.write_text("{}")
        path.with_suffix(".lock").touch()
        for one in (path, path.with_suffix(".lock")):
            os.utime(one, (old, old))
    orphan = session_path(config, "codex", "orphan").with_suffix(".lock")
    orphan.touch()
    os.utime(orphan, (old, old))

    with file_lock(held.with_suffix(".lock")), file_lock(orphan):
        prune_sessions(config, "codex", now)

        assert held.exists() and held.with_suffix(".lock").exists() and orphan.exists()
        assert not idle.exists() and not idle.with_suffix(".lock").exists()


def test_pruning_reads_one_status_a_state_and_none_a_lock_beside_its_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It runs at each session start (Hermes's session end): 5,000 sessions took ~0.3 s of
    the hook, a Path, a suffix and an exists() for each lock beside its state among them."""
    import os
    import time

    from memidx.agents.session import prune_sessions

    config = _config(tmp_path)
    for number in range(200):
        path = session_path(config, "codex", f"s-{number}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
        path.with_suffix(".lock").touch()
    looked: list[str] = []
    real_stat = Path.stat

    def counted(path: Path, **kwargs: bool) -> os.stat_result:
        looked.append(path.name)
        return real_stat(path, **kwargs)

    monkeypatch.setattr(Path, "stat", counted)

    prune_sessions(config, "codex", time.time())

    assert looked == []  # the listing's own status of each state; none for its lock
