"""A PreCompact hook cut off while it archives the transcript (a 9 MB transcript under load
passed its 30 s deadline with its first 8 MB part filed and the last missing, said nowhere but
"gave up"). Each part of a transcript says it is one; the hook keeps a copy of what it archives
until its last part is filed, `memidx status` counts those left, and the session's next hook
event files the rest, each part once, before its own work (the summary then points at the
whole archive)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from memidx.agents import actions, capture
from memidx.agents.archive_left import begin, left_path
from memidx.agents.session import TRANSCRIPT, Where, session_state
from memidx.config import Config, load_config
from memidx.hashes import sha256_hex
from memidx.haystack.clone_writer import clone_writer
from memidx.haystack.frames import Record
from memidx.haystack.indexing import Filed
from memidx.portable import file_lock
from tests.cli.test_agent_hooks import CUT_OFF, FIRST, SESSION, hook, memory, stop, transcript
from tests.cli.test_archives_left_finished import first_whole
from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env

SEARCH = ("search", "--json", "--kind", "transcript", "--mode", "bm25", "--limit", "50")


def archived(repo: NotesRepo, word: str = "line") -> list[dict[str, object]]:
    return list(repo.memidx(*SEARCH, word).json()["hits"])


def test_a_precompact_cut_off_is_archived_at_the_next_event_and_status_says_so(
    tmp_path: Path,
) -> None:
    repo = memory(tmp_path)
    path = transcript(tmp_path, *FIRST)
    payload = {**stop(path, ""), "hook_event_name": "PreCompact", "trigger": "auto"}

    with file_lock(clone_writer(load_config(repo.root)).lock):  # the hook cannot file: cut off
        done, _ = hook(repo, "PreCompact", payload, MEMIDX_AGENT_DEADLINE=CUT_OFF)

    assert (done.returncode, done.stdout) == (0, "")
    assert archived(repo, "vmmem") == []
    status = repo.memidx("status")
    assert "1 transcript to archive, left by a hook cut off before a compaction" in status.out
    assert repo.memidx("status", "--json").json()["archives_left"] == 1

    summary = {**payload, "hook_event_name": "PostCompact", "compact_summary": "Capped vmmem."}
    hook(repo, "PostCompact", summary, MEMIDX_AGENT_DEADLINE="60")

    hits = archived(repo, "vmmem")
    assert len(hits) == 1
    assert repo.memidx("show", str(hits[0]["ref"])).out.rstrip("\n") == "".join(FIRST).rstrip()
    turn = repo.memidx("search", "--json", "--kind", "turn", "--mode", "bm25", "Capped").json()
    record = json.loads(repo.memidx("show", "--json", turn["hits"][0]["ref"]).out)
    meta = hits[0]["meta"]
    assert isinstance(meta, dict) and record["summary_of"] == meta["id"]
    assert repo.memidx("status", "--json").json()["archives_left"] == 0
    assert "transcript to archive" not in repo.memidx("status").out
    hook(repo, "Stop", stop(path, "Set memory=6GB in .wslconfig."), MEMIDX_AGENT_DEADLINE="60")
    assert len(archived(repo, "vmmem")) == 1  # archived once


class GaveUp(Exception):
    """The hook's deadline passed (its thread is abandoned as the process exits)."""


def test_parts_say_they_are_parts_and_the_rest_is_filed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = memory(tmp_path)
    config = load_config(repo.root)
    where = Where("claude-code", SESSION, str(tmp_path))
    text = "".join(f"line {n} of the quillwort session\n" * 4 for n in range(4))
    monkeypatch.setattr(capture, "ARCHIVE_PART_BYTES", len(text) // 4)  # 4 parts
    filing = capture.file
    calls: list[str] = []

    def cut_off_at_the_third(config: Config, record: Record, *, hurried: bool) -> Filed:
        calls.append(record.text)
        if len(calls) == 3:
            raise GaveUp
        return filing(config, record, hurried=hurried)

    monkeypatch.setattr(capture, "file", cut_off_at_the_third)
    with pytest.raises(GaveUp):
        actions.archive_transcript(config, where, text)

    hits = archived(repo)
    assert sorted(str(h["tags"]) for h in hits) == [
        "['claude-code', 'part-1-of-4']", "['claude-code', 'part-2-of-4']",
    ]  # fmt: skip
    copy = left_path(config, where, sha256_hex(text.encode()))
    assert copy.read_text() == text
    calls.clear()

    actions.finish_archive(config, where)

    assert len(calls) == 2  # the parts filed before are neither redacted nor filed again
    hits = archived(repo)
    shown = sorted((str(h["tags"]), repo.memidx("show", str(h["ref"])).out) for h in hits)
    assert [tags for tags, _ in shown] == [f"['claude-code', 'part-{n}-of-4']" for n in range(1, 5)]
    assert "".join(body for _, body in shown) == text
    last = next(h for h in hits if "part-4-of-4" in str(h["tags"]))
    meta = last["meta"]
    assert isinstance(meta, dict) and session_state(config, where).text(TRANSCRIPT) == meta["id"]
    assert not copy.exists()
    assert actions.finish_archive(config, where) is None


def test_a_torn_copy_is_forgotten_and_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = memory(tmp_path)
    config = load_config(repo.root)
    where = Where("claude-code", SESSION, str(tmp_path))

    def gave_up(*_: object, **__: object) -> object:
        raise GaveUp

    monkeypatch.setattr(capture, "file", gave_up)
    with pytest.raises(GaveUp):
        actions.archive_transcript(config, where, "the quillwort session\n")
    copy = left_path(config, where, sha256_hex(b"the quillwort session\n"))
    copy.write_text("the quillwort sess")  # torn by a power loss
    monkeypatch.undo()

    assert actions.finish_archive(config, where) is None

    trace = config.agent_hook_error_path.read_text()
    assert "claude-code archive" in trace and "cannot be finished" in trace
    aside = copy.with_name(f"{copy.name}.torn")  # the person's all the same: never deleted
    assert not copy.exists() and aside.read_text() == "the quillwort sess"
    assert f"kept aside as {aside}" in trace
    assert archived(repo, "quillwort") == []
    assert actions.finish_archive(config, where) is None  # not judged again
    assert trace == config.agent_hook_error_path.read_text()


LINES = [{"type": "user", "content": "how do I cap vmmem?"}, {"type": "reply", "text": "Cap it."}]
# agent: (its compaction event, the event after it, what that event carries); the transcript's
# place (`transcript_path`) or, for Hermes, the messages go into the first
OTHERS: dict[str, tuple[str, str, dict[str, object]]] = {
    "codex": ("PreCompact", "Stop", {"last_assistant_message": "Cap it."}),
    "gemini": ("PreCompress", "AfterAgent", {"prompt": "cap?", "prompt_response": "Cap it."}),
    "cursor": ("preCompact", "afterAgentResponse", {"text": "Cap it."}),
    "hermes": ("pre_compress", "sync_turn", {"user": "cap?", "assistant": "Cap it."}),
}


def run_hook(
    repo: NotesRepo, agent: str, event: str, payload: dict[str, object], wait: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(MEMIDX_BIN), "agent", "hook", agent, event], input=json.dumps(payload),
        cwd=repo.root.parent, capture_output=True, text=True, timeout=180, check=False,
        env=clean_env(MEMIDX_ROOT=str(repo.root), MEMIDX_HOOK_EMBED="0", MEMIDX_RECALL_IDLE="5",
                      MEMIDX_AGENT_DEADLINE=wait),
    )  # fmt: skip


@pytest.mark.parametrize("agent", list(OTHERS))
def test_every_agents_next_event_finishes_an_archive_cut_off(tmp_path: Path, agent: str) -> None:
    repo = memory(tmp_path)
    compaction, after, carried = OTHERS[agent]
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in LINES))
    base: dict[str, object] = {
        "session_id": "s-1", "conversation_id": "s-1", "cwd": str(tmp_path),
        "workspace_roots": [str(tmp_path)],
    }  # fmt: skip
    first = {**base, "transcript_path": str(path), "trigger": "manual", "messages": LINES}

    with file_lock(clone_writer(load_config(repo.root)).lock):
        assert run_hook(repo, agent, compaction, first, CUT_OFF).returncode == 0
    assert archived(repo, "vmmem") == []
    assert repo.memidx("status", "--json").json()["archives_left"] == 1

    assert run_hook(repo, agent, after, {**base, **carried}, "60").returncode == 0

    assert len(archived(repo, "vmmem")) == 1
    assert repo.memidx("status", "--json").json()["archives_left"] == 0


def test_a_session_never_takes_the_copy_of_one_whose_name_starts_as_its_own(
    tmp_path: Path,
) -> None:
    config = load_config(memory(tmp_path).root)
    other = Where("claude-code", "s.1", str(tmp_path))
    copy = begin(config, other, "the quillwort session\n")

    assert first_whole(config, Where("claude-code", "s", str(tmp_path))) is None
    assert first_whole(config, other) == ("the quillwort session\n", copy)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_the_copy_of_the_unredacted_transcript_is_the_users_alone(tmp_path: Path) -> None:
    config = load_config(memory(tmp_path).root)
    where = Where("claude-code", SESSION, str(tmp_path))
    before = os.umask(0o022)
    try:
        copy = begin(config, where, "export API_TOKEN=sk-live-quillwort\n")
    finally:
        os.umask(before)

    assert copy is not None and stat.S_IMODE(copy.stat().st_mode) == 0o600


def test_a_transcript_with_half_an_emoji_is_archived(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    config = load_config(repo.root)
    where = Where("hermes", "s-1", str(tmp_path))

    actions.archive_transcript(config, where, '{"content": "cap quillwort \ud83d now"}\n')

    hits = archived(repo, "quillwort")
    assert len(hits) == 1 and "\ufffd" in repo.memidx("show", str(hits[0]["ref"])).out
    assert repo.memidx("status", "--json").json()["archives_left"] == 0
