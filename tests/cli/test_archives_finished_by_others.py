"""A transcript a hook cut off left to archive is finished by the hooks of the agent's other
sessions, a part at a time (memidx.agents.finish_one): a session the agent never takes up
again kept its raw copy for ever, unless someone ran `memidx agent finish-archives`."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from memidx.agents import capture
from memidx.agents.archive_left import begin, copies_left
from memidx.agents.finish_one import PART_SECONDS, finish_one_part
from memidx.agents.session import PROJECT, SESSION_ID, Where, session_state
from memidx.config import Config, load_config
from tests.cli.test_agent_hooks import FIRST, hook, memory, stop, transcript
from tests.helpers import NotesRepo

SEARCH = ("search", "--json", "--kind", "transcript", "--mode", "bm25", "--limit", "50")
GONE = "a0000000-0000-4000-8000-00000000dead"  # a session the agent never takes up again


def left_by(config: Config, agent: str, session: str, text: str) -> Path:
    """A copy a hook of `session` cut off left, its id and project kept as the hook keeps them."""
    where = Where(agent, session, "/tmp/proj")
    state = session_state(config, where)
    state.set_text(SESSION_ID, session)
    state.set_text(PROJECT, "proj")
    state.save()
    copy = begin(config, where, text)
    assert copy is not None
    return copy


def archived(repo: NotesRepo) -> list[dict[str, object]]:
    return list(repo.memidx(*SEARCH, "vmmem").json()["hits"])


def test_another_sessions_stop_files_a_copy_its_session_left(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    copy = left_by(load_config(repo.root), "claude-code", GONE, "the vmmem session\n")

    path = transcript(tmp_path, *FIRST)
    done, _ = hook(repo, "Stop", stop(path, ""), MEMIDX_AGENT_DEADLINE="60")

    assert done.returncode == 0
    assert not copy.exists()
    [hit] = archived(repo)
    record = json.loads(repo.memidx("show", "--json", str(hit["ref"])).out)
    assert (record["session"], record["drawer"]) == (GONE, "proj")
    assert repo.memidx("status", "--json").json()["archives_left"] == 0


def test_an_event_without_time_to_spare_files_no_part_of_another_sessions_copy(
    tmp_path: Path,
) -> None:
    repo = memory(tmp_path)
    copy = left_by(load_config(repo.root), "claude-code", GONE, "the vmmem session\n")

    path = transcript(tmp_path, *FIRST)
    assert PART_SECONDS > 4  # its own work done, less than a part's time is left
    assert hook(repo, "Stop", stop(path, ""), MEMIDX_AGENT_DEADLINE="4")[0].returncode == 0

    assert copy.exists()
    assert archived(repo) == []


def test_each_event_files_at_most_one_part_until_the_copy_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = load_config(memory(tmp_path).root)
    text = "".join(f"vmmem line {n}\n" for n in range(30))
    copy = left_by(config, "codex", GONE, text)
    other = left_by(config, "claude-code", GONE, "another agent's vmmem\n")
    monkeypatch.setattr(capture, "ARCHIVE_PART_BYTES", len(text) // 3)
    parts = len(capture.transcript_parts(text, len(text) // 3))
    assert parts > 2
    here = Where("codex", "s-here", "/tmp/proj")

    filed: list[int] = []
    for _ in range(parts):
        assert finish_one_part(config, here, time.monotonic() + 60)
        filed.append(len(session_state(config, Where("codex", GONE, "/")).keys("archived")))
        assert copy.exists() == (len(filed) < parts)

    assert filed == list(range(1, parts + 1))  # one part an event
    assert not finish_one_part(config, here, time.monotonic() + 60)  # none left of codex's
    assert other.exists()  # another agent's: its own sessions' hooks file it


def test_a_copy_too_large_to_read_in_the_time_left_waits_and_a_smaller_one_is_filed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memidx.agents import finish_one

    config = load_config(memory(tmp_path).root)
    large = left_by(config, "codex", GONE, "vmmem line\n" * 100_000)  # 1.1 MB, the oldest
    small = left_by(config, "codex", "s-small", "the small vmmem session\n")
    # as slow as a loaded machine reads a copy of hundreds of MiB: 2 s for the large one
    monkeypatch.setattr(finish_one, "READ_BYTES_PER_SECOND", 550_000, raising=False)
    here = Where("codex", "s-here", "/tmp/proj")

    assert finish_one_part(config, here, time.monotonic() + PART_SECONDS + 1)

    assert large.exists()  # read whole, hashed and cut, it would run past the deadline
    assert not small.exists()  # filed whole: one part


def test_a_copy_that_cannot_be_read_is_said_once_until_it_changes(tmp_path: Path) -> None:
    from memidx.agents.archive_left import left_path

    config = load_config(memory(tmp_path).root)
    left_by(config, "codex", GONE, "the vmmem session\n")
    folder = left_path(config, Where("codex", GONE, "/"), "b" * 64)
    folder.mkdir()  # a folder named like a copy: no file to read
    os.utime(folder, ns=(1, 1))  # the oldest
    here = Where("codex", "s-here", "/tmp/proj")

    def said() -> int:
        return config.agent_hook_error_path.read_text().count(f"its copy {folder} cannot be read")

    for _ in range(3):  # each event judges it, and files a part of the next copy
        finish_one_part(config, here, time.monotonic() + 60)
    assert said() == 1  # said at every event: the trace grew by the same line
    assert copies_left(config) == {("codex", GONE): [folder]}  # the next copy filed

    os.utime(folder, ns=(2, 2))  # changed: said again, once
    for _ in range(2):
        finish_one_part(config, here, time.monotonic() + 60)
    assert said() == 2

    folder.rmdir()  # moved away: what was kept of it goes with it
    assert copies_left(config) == {}
    assert [p.name for p in folder.parent.iterdir() if "b" * 64 in p.name] == []
