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
import tracemalloc
from pathlib import Path

import pytest

from memidx.agents.archive_left import Torn, begin, left_path, session_copies, take_judged
from memidx.agents.copy_source import OnDisk
from memidx.agents.session import SESSION_ID, Where, session_path, session_state
from memidx.config import Config, load_config
from memidx.hashes import sha256_hex
from memidx.haystack.clone_writer import clone_writer
from memidx.haystack.frames import Record
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


def first_whole(config: Config, where: Where) -> tuple[str, Path] | None:
    """The text and copy of the session's first copy judged whole, as its next event takes
    them (actions.finish_archive), the text read whole (a test's copies are small)."""
    for copy in session_copies(config, where):
        source = take_judged(config, where, copy)
        if isinstance(source, OnDisk):
            try:
                return source.read(0, source.size()).decode(), copy
            finally:
                source.close()
    return None


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
                      "transcripts": 1, "parts": 1, "torn": 0, "left": 0,
                      "kept_aside": [], "unreadable": []}],
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

    assert first_whole(config, where) == (text, copy)
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

    assert take_judged(config, where, copy) is None
    assert not config.agent_hook_error_path.exists()


def test_a_torn_copy_is_kept_aside_not_deleted_and_fails_the_command(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    config = load_config(repo.root)
    copy = begin(config, Where("claude-code", SESSION, str(tmp_path)), "the vmmem session\n")
    assert copy is not None
    copy.write_text("the vmmem sess")  # torn: its hash differs from its name's
    aside = copy.with_name(f"{copy.name}.torn")

    done = repo.memidx_process("agent", "finish-archives", "--json")

    assert done.code == 1, done.err
    [said] = json.loads(done.out)["sessions"]
    assert (said["transcripts"], said["parts"], said["torn"]) == (0, 0, 1)
    assert said["kept_aside"] == [str(aside)]
    assert done.err.count("\n") == 1 and f"{aside}: a transcript copy torn" in done.err
    assert "Traceback" not in done.err
    assert not copy.exists()
    assert aside.read_text() == "the vmmem sess"  # the person's: kept, never deleted
    assert archived(repo) == []
    status = repo.memidx("status", "--json").json()
    assert (status["archives_left"], status["archives_torn"]) == (0, [str(aside)])
    assert str(aside) in repo.memidx("status").out
    again = repo.memidx_process("agent", "finish-archives")  # not retried
    assert (again.code, again.out) == (0, "no transcript left to archive\n")


def test_a_torn_copy_beside_one_kept_aside_before_replaces_none(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    config = load_config(repo.root)
    where = Where("claude-code", SESSION, str(tmp_path))
    copy = begin(config, where, "the vmmem session\n")
    assert copy is not None
    copy.with_name(f"{copy.name}.torn").write_text("torn before")
    copy.write_text("torn now")

    assert isinstance(take_judged(config, where, copy), Torn)

    assert copy.with_name(f"{copy.name}.torn").read_text() == "torn before"
    assert copy.with_name(f"{copy.name}.2.torn").read_text() == "torn now"


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


def test_finish_archives_named_agent_files_that_agents_copies_alone(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    config = load_config(repo.root)
    for agent in ("claude-code", "codex"):
        where = Where(agent, SESSION, str(tmp_path))
        state = session_state(config, where)
        state.set_text(SESSION_ID, SESSION)
        state.save()
        assert begin(config, where, f"the vmmem session of {agent}\n") is not None

    done = repo.memidx_process("agent", "finish-archives", "codex", "--json")

    assert done.code == 0, done.err
    assert [s["agent"] for s in json.loads(done.out)["sessions"]] == ["codex"]
    assert repo.memidx("status", "--json").json()["archives_left"] == 1  # claude-code's waits
    hits = archived(repo)
    assert len(hits) == 1
    assert json.loads(repo.memidx("show", "--json", str(hits[0]["ref"])).out)["agent"] == "codex"


def test_a_copy_that_cannot_be_read_is_named_and_the_others_are_filed(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    config = load_config(repo.root)
    first = Where("claude-code", "s-1", str(tmp_path))
    folder = left_path(config, first, "b" * 64)  # a folder named like a copy: no file to read
    folder.mkdir(parents=True)
    os.utime(folder, (1, 1))  # the oldest
    assert begin(config, Where("claude-code", "s-2", str(tmp_path)), "the vmmem session\n")

    done = repo.memidx_process("agent", "finish-archives", "--json")

    assert done.code == 1, done.err
    sessions = {s["session"]: s for s in json.loads(done.out)["sessions"]}
    assert (sessions["s-2"]["transcripts"], sessions["s-2"]["parts"]) == (1, 1)
    assert [u["path"] for u in sessions["s-1"]["unreadable"]] == [str(folder)]
    assert done.err.count("\n") == 1 and f"{folder}: cannot be read (" in done.err
    assert "Traceback" not in done.err
    assert folder.is_dir() and len(archived(repo)) == 1


def test_a_hook_takes_the_next_copy_past_one_it_cannot_read(tmp_path: Path) -> None:
    config = load_config(memory(tmp_path).root)
    where = Where("claude-code", SESSION, str(tmp_path))
    folder = left_path(config, where, "b" * 64)
    folder.mkdir(parents=True)
    os.utime(folder, (1, 1))
    copy = begin(config, where, "the vmmem session\n")

    assert first_whole(config, where) == ("the vmmem session\n", copy)
    assert f"its copy {folder} cannot be read" in config.agent_hook_error_path.read_text()


def test_status_counts_as_left_only_what_finish_archives_can_file(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    config = load_config(repo.root)
    copy = begin(config, Where("codex", "s-1", str(tmp_path)), "the vmmem session\n")
    assert copy is not None
    (copy.parent / "notes.archive").write_text("no copy: no hash in its name")
    (copy.parent / f"{'c' * 64}.archive").write_text("no copy: no session's name")

    assert repo.memidx("status", "--json").json()["archives_left"] == 1
    assert repo.memidx_process("agent", "finish-archives").code == 0
    assert repo.memidx("status", "--json").json()["archives_left"] == 0


def test_an_older_copy_with_no_project_saved_is_filed_with_none(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    config = load_config(repo.root)
    where = Where("codex", "s-old", str(tmp_path / "proj"))
    assert begin(config, where, "the vmmem session\n") is not None  # no state: an older memidx

    done = repo.memidx_process("agent", "finish-archives", "--json")

    assert done.code == 0, done.err
    assert json.loads(done.out)["sessions"][0]["project"] == "general"
    record = json.loads(repo.memidx("show", "--json", str(archived(repo)[0]["ref"])).out)
    assert record["drawer"] == "general"  # not "memory": the memory's folder is no project


def test_a_copy_is_hashed_and_filed_a_part_at_a_time_never_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memidx.agents import actions, capture
    from memidx.haystack.indexing import Filed

    config = load_config(memory(tmp_path).root)
    where = Where("codex", "s-big", str(tmp_path))
    line = '{"role": "user", "content": "' + "w" * 1000 + '"}\n'
    copy = begin(config, where, line * (24 * 1024))  # 24 MiB
    assert copy is not None
    sizes: list[int] = []

    def filed(_: Config, record: Record, **__: object) -> Filed:
        sizes.append(len(record.text))
        return Filed(f"r{len(sizes)}", "", duplicate=False)

    monkeypatch.setattr(capture, "file", filed)
    tracemalloc.start()
    try:
        assert actions.finish_archive(config, where) is not None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert sum(sizes) == len(line) * 24 * 1024 and not copy.exists()  # every part filed
    assert peak < 8 * 1024 * 1024  # a few parts' worth: read whole, 24 MiB twice over


def _torn_copy(tmp_path: Path) -> tuple[Config, Where, Path, Path]:
    """A session's copy torn (cut short) before its hook finished it: (config, where, the
    copy, the name it is kept aside under)."""
    config = load_config(memory(tmp_path).root)
    where = Where("claude-code", SESSION, str(tmp_path))
    copy = begin(config, where, "the vmmem session\n")
    assert copy is not None
    copy.write_text("the vmmem sess")  # torn
    return config, where, copy, copy.with_name(f"{copy.name}.torn")


def test_a_torn_copy_another_hook_is_keeping_aside_gets_no_second_name(tmp_path: Path) -> None:
    config, where, copy, aside = _torn_copy(tmp_path)
    os.link(copy, aside)  # another hook judged it torn too: linked, not yet unlinked

    assert isinstance(take_judged(config, where, copy), Torn)

    assert not copy.exists() and aside.read_text() == "the vmmem sess"
    assert sorted(p.name for p in copy.parent.iterdir() if p.name.endswith(".torn")) == [
        aside.name
    ]  # one torn copy, named once: status and finish-archives named it twice
    status = load_config(config.root)
    from memidx.memory.archives_left import torn_kept

    assert torn_kept(status.state_dir) == [aside]


def test_a_torn_copy_another_hook_kept_aside_meanwhile_is_not_said_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memidx.agents import archive_left

    config, where, copy, aside = _torn_copy(tmp_path)
    real_link = os.link

    def kept_by_another(src: Path, dst: Path, **kwargs: bool) -> None:
        real_link(src, aside)  # the other hook, between this one's hash and its link
        Path(src).unlink()
        real_link(src, dst, **kwargs)

    monkeypatch.setattr(archive_left.os, "link", kept_by_another)
    judged = archive_left.take_judged(config, where, copy)

    assert judged is None  # the other said it; this one names no path that is gone
    assert aside.read_text() == "the vmmem sess"
    assert "kept aside as" not in (
        config.agent_hook_error_path.read_text() if config.agent_hook_error_path.exists() else ""
    )


def _written_again_after(
    monkeypatch: pytest.MonkeyPatch, config: Config, where: Where, step: str
) -> None:
    """The session's own hook writes its copy again, whole (begin), once, right after `step`
    of another hook judging it: its hash check ("digest") or its link aside ("link")."""
    from memidx.agents import archive_left, copy_source

    done: list[bool] = []
    real_digest, real_link = copy_source.OnDisk.digest, os.link

    def again() -> None:
        if not done:
            done.append(True)
            assert begin(config, where, "the vmmem session\n") is not None

    def digest(source: OnDisk) -> str:
        found = real_digest(source)
        if step == "digest":
            again()
        return found

    def link(src: Path, dst: Path, **kwargs: bool) -> None:
        real_link(src, dst, **kwargs)
        if step == "link":
            again()

    monkeypatch.setattr(copy_source.OnDisk, "digest", digest)
    monkeypatch.setattr(archive_left.os, "link", link)


def test_a_copy_written_again_between_its_hash_and_its_link_is_not_kept_aside_as_torn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, where, copy, _ = _torn_copy(tmp_path)
    _written_again_after(monkeypatch, config, where, "digest")

    judged = take_judged(config, where, copy)

    assert isinstance(judged, OnDisk)  # the copy written again, judged whole
    assert judged.read(0, judged.size()) == b"the vmmem session\n"
    judged.close()
    assert [p.name for p in copy.parent.iterdir() if p.name.endswith(".torn")] == []
    trace = config.agent_hook_error_path
    assert "torn" not in (trace.read_text() if trace.exists() else "")


def test_a_copy_written_again_between_its_link_and_its_removal_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, where, copy, _ = _torn_copy(tmp_path)
    _written_again_after(monkeypatch, config, where, "link")

    judged = take_judged(config, where, copy)

    assert isinstance(judged, Torn) and judged.kept is not None
    assert judged.kept.read_text() == "the vmmem sess"  # the torn one, kept aside
    assert copy.read_text() == "the vmmem session\n"  # the one written since: not removed
    assert [p.name for p in copy.parent.iterdir() if p.name.endswith(".tmp")] == []
