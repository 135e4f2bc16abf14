"""A transcript a PreCompact hook cut off left to archive (memidx.agents.archive_left) is
finished without a next hook event of its session (`memidx agent finish-archives`), keeps its
session's state while it waits, and leaves no draft of a killed writer; a copy over 64 MiB is
judged by its hash, not by its size."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memidx.agents.archive_left import begin, left_path, take, take_left
from memidx.agents.session import SESSION_ID, Where, session_path, session_state
from memidx.config import load_config
from memidx.hashes import sha256_hex
from memidx.haystack.clone_writer import clone_writer
from memidx.portable import file_lock
from tests.cli.test_agent_hooks import CUT_OFF, FIRST, SESSION, hook, memory, stop, transcript
from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env

SEARCH = ("search", "--json", "--kind", "transcript", "--mode", "bm25", "--limit", "50")


def cut_off(repo: NotesRepo, tmp_path: Path) -> None:
    """A PreCompact of SESSION (project `proj`) cut off before it filed a part."""
    path = transcript(tmp_path, *FIRST)
    payload = {**stop(path, ""), "hook_event_name": "PreCompact", "trigger": "auto"}
    with file_lock(clone_writer(load_config(repo.root)).lock):
        done, _ = hook(repo, "PreCompact", payload, MEMIDX_AGENT_DEADLINE=CUT_OFF)
    assert done.returncode == 0
    assert repo.memidx("status", "--json").json()["archives_left"] == 1


def archived(repo: NotesRepo) -> list[dict[str, object]]:
    return list(repo.memidx(*SEARCH, "vmmem").json()["hits"])


def test_finish_archives_files_a_copy_whose_session_has_no_later_event(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    cut_off(repo, tmp_path)
    assert "memidx agent finish-archives" in repo.memidx("status").out

    done = repo.memidx_process("agent", "finish-archives", "--json")

    assert done.code == 0, done.err
    assert json.loads(done.out) == {
        "schema": "memidx.archives-finished/1",
        "sessions": [{"agent": "claude-code", "session": SESSION, "project": "proj",
                      "transcripts": 1, "parts": 1, "torn": 0, "left": 0}],
    }  # fmt: skip
    hits = archived(repo)
    assert len(hits) == 1
    record = json.loads(repo.memidx("show", "--json", str(hits[0]["ref"])).out)
    assert (record["session"], record["drawer"]) == (SESSION, "proj")
    assert repo.memidx("status", "--json").json()["archives_left"] == 0
    again = repo.memidx_process("agent", "finish-archives")
    assert (again.code, again.out) == (0, "no transcript left to archive\n")


def test_an_idle_session_with_a_copy_left_keeps_its_state_until_it_is_finished(
    tmp_path: Path,
) -> None:
    repo = memory(tmp_path)
    cut_off(repo, tmp_path)
    state = session_path(load_config(repo.root), "claude-code", SESSION)
    old = time.time() - 40 * 86_400
    os.utime(state, (old, old))

    start = {"session_id": "another", "cwd": "/tmp/elsewhere", "hook_event_name": "SessionStart"}
    assert hook(repo, "SessionStart", start)[0].returncode == 0  # prunes idle sessions

    assert state.exists()  # the session's id, project and filed parts: kept with its copy
    assert repo.memidx_process("agent", "finish-archives").code == 0
    record = json.loads(repo.memidx("show", "--json", str(archived(repo)[0]["ref"])).out)
    assert record["drawer"] == "proj"
    assert repo.memidx("status", "--json").json()["archives_left"] == 0


def gone_pid() -> int:
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    return int(child.stdout)


def test_the_draft_of_a_copy_whose_writer_was_killed_is_removed(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    config = load_config(repo.root)
    copy = left_path(config, Where("claude-code", "s-9", str(tmp_path)), "a" * 64)
    copy.parent.mkdir(parents=True, exist_ok=True)
    dead = copy.with_name(f".{copy.name}.{gone_pid()}.tmp")
    live = copy.with_name(f".{copy.name}.{os.getpid()}.tmp")  # this test's: its writer lives
    for draft in (dead, live):
        draft.write_text("the raw transcript, password=hunter2hunter2\n")

    path = transcript(tmp_path, *FIRST)
    assert hook(repo, "Stop", stop(path, ""), MEMIDX_AGENT_DEADLINE="60")[0].returncode == 0

    assert not dead.exists()
    assert live.exists()


def test_a_copy_over_64_mib_is_finished_not_called_torn(tmp_path: Path) -> None:
    config = load_config(memory(tmp_path).root)
    where = Where("hermes", "20261207_101500_ab12cd", str(tmp_path))
    text = ('{"role": "user", "content": "' + "w" * 1000 + '"}\n') * (65 * 1024)
    copy = begin(config, where, text)
    assert copy is not None and copy.stat().st_size > 64 * 1024 * 1024

    assert take_left(config, where) == (text, copy)
    assert copy.exists()
    assert sha256_hex(copy.read_bytes()) in copy.name
    assert not config.agent_hook_error_path.exists()


def at_terminal(repo: NotesRepo) -> tuple[subprocess.CompletedProcess[str], str]:
    """finish-archives run with its stderr a terminal: what it did, and what it said there."""
    import pty

    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [str(MEMIDX_BIN), "-C", str(repo.root), "agent", "finish-archives"],
            stderr=follower, stdout=subprocess.PIPE, text=True, timeout=180, check=False,
            env=clean_env(MEMIDX_HOOK_EMBED="0"),
        )  # fmt: skip
        os.close(follower)
        try:
            said = os.read(leader, 65536).decode()
        except OSError:  # EIO: nothing was written to it
            said = ""
    finally:
        os.close(leader)
    return done, said


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
def test_finish_archives_says_each_part_at_a_terminal(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    cut_off(repo, tmp_path)

    done, said = at_terminal(repo)

    assert (done.returncode, done.stdout) == (0, "1 transcript archived (1 part filed now)\n")
    assert said.splitlines() == [f"memidx: claude-code session {SESSION}: part 1 of 1 filed"]


def test_a_copy_finished_meanwhile_by_another_is_not_called_torn(tmp_path: Path) -> None:
    config = load_config(memory(tmp_path).root)
    where = Where("claude-code", SESSION, str(tmp_path))
    copy = begin(config, where, "the quillwort session\n")
    assert copy is not None
    copy.unlink()  # a hook of the session finished it after finish-archives listed it

    assert take(config, where, copy) is None
    assert not config.agent_hook_error_path.exists()


def test_a_torn_copy_is_not_called_archived_and_fails_the_command(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    config = load_config(repo.root)
    copy = begin(config, Where("claude-code", SESSION, str(tmp_path)), "the vmmem session\n")
    assert copy is not None
    copy.write_text("the vmmem sess")  # torn: its hash differs from its name's

    done = repo.memidx_process("agent", "finish-archives", "--json")

    assert done.code == 1, done.err
    assert json.loads(done.out)["sessions"] == [{
        "agent": "claude-code", "session": SESSION, "project": "memory",
        "transcripts": 0, "parts": 0, "torn": 1, "left": 0,
    }]  # fmt: skip
    assert done.err.count("\n") == 1 and "1 transcript copy torn" in done.err
    assert "Traceback" not in done.err
    assert not copy.exists()
    assert archived(repo) == []


def test_a_part_another_filed_already_is_not_counted_as_filed_now(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    config = load_config(repo.root)
    where = Where("claude-code", SESSION, str(tmp_path))
    assert begin(config, where, "the vmmem session\n") is not None
    assert json.loads(repo.memidx_process("agent", "finish-archives", "--json").out)[
        "sessions"][0]["parts"] == 1  # fmt: skip
    # the part is in the index, its session's state does not say so: as when a hook of the
    # session filed it while finish-archives ran (no session lock between them)
    session_path(config, "claude-code", SESSION).unlink()
    assert begin(config, where, "the vmmem session\n") is not None

    done = repo.memidx_process("agent", "finish-archives", "--json")

    assert done.code == 0, done.err
    assert json.loads(done.out)["sessions"][0]["parts"] == 0
    assert len(archived(repo)) == 1


def test_a_copy_of_a_session_whose_id_is_unknown_is_left_and_said(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    config = load_config(repo.root)
    where = Where("cursor", "Task/1", "/tmp/proj")  # no plain id: its state's name is a hash
    copy = begin(config, where, "the vmmem session\n")  # an older memidx kept no id
    assert copy is not None

    done = repo.memidx_process("agent", "finish-archives", "--json")

    assert done.code == 1, done.err
    [said] = json.loads(done.out)["sessions"]
    assert (said["transcripts"], said["parts"], said["left"]) == (0, 0, 1)
    assert "1 transcript copy left: no id of its session is known" in done.err
    assert copy.exists()  # for the session's next hook event, which names its id
    assert archived(repo) == []  # not under a made-up session: its parts filed again
    assert sorted(p.name for p in copy.parent.glob("*.json")) == []


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
def test_a_session_id_with_control_characters_is_shown_escaped_at_a_terminal(
    tmp_path: Path,
) -> None:
    repo = memory(tmp_path)
    config = load_config(repo.root)
    where = Where("claude-code", "s\x1b]0;owned\x07\nmemidx: forged", str(tmp_path))
    state = session_state(config, where)
    state.set_text(SESSION_ID, where.session)
    state.save()
    assert begin(config, where, "the vmmem session\n") is not None

    done, said = at_terminal(repo)

    assert done.returncode == 0
    assert said.splitlines() == [
        "memidx: claude-code session s\\x1b]0;owned\\x07\\nmemidx: forged: part 1 of 1 filed"
    ]
