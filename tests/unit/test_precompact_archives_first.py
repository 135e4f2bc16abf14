"""Before compaction the transcript is archived first: the filing of its exchanges is the
longer work (a 9 MB transcript under load took past the 30 s deadline) and may fail, and a
hook that gave up in it left the transcript the agent was about to compact unarchived. The
exchanges are filed at the next event; the transcript's words before compaction are not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

import pytest

from memidx.agents import actions, claude_code, codex, cursor, gemini, hermes
from memidx.agents.exchange import Exchange
from memidx.agents.runner import Adapter, HookCall
from memidx.config import Config

ANSWER = {"content": [{"type": "text", "text": "Cap it."}]}
LINES = [
    {"type": "user", "uuid": "u1", "message": {"content": "how do I cap vmmem?"}},
    {"type": "assistant", "uuid": "a1", "message": ANSWER},
]


class GaveUp(Exception):
    """The filing of the exchanges stopped (its deadline, a lock, an error)."""


@pytest.mark.parametrize("adapter", [claude_code.ADAPTER, codex.ADAPTER], ids=["claude", "codex"])
def test_precompact_archives_before_it_files_the_exchanges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, adapter: Adapter
) -> None:
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in LINES))
    archived: list[str] = []

    def capture(*_: object) -> list[object]:
        raise GaveUp

    monkeypatch.setattr(actions, "capture", capture)

    def archive(_config: object, _where: object, text: str) -> None:
        archived.append(text)

    monkeypatch.setattr(actions, "archive_transcript", archive)
    monkeypatch.setattr(actions, "finish_archive", _nothing)
    monkeypatch.setattr(codex, "session_state", _no_state)
    payload: dict[str, object] = {
        "session_id": "s1", "cwd": str(tmp_path), "transcript_path": str(path),
        "hook_event_name": "PreCompact", "trigger": "manual",
    }  # fmt: skip
    call = HookCall("agent", "PreCompact", payload, cast(Config, None), 0.0)

    with pytest.raises(GaveUp):
        adapter.handle(call)

    assert archived == [path.read_text()]


def _nothing(*_: object) -> None:
    return None


def _no_state(*_: object) -> _NoState:
    return _NoState()


class _NoState:
    def text(self, _key: str) -> None:
        return None

    def keys(self, _key: str) -> list[str]:
        return []


def _prompted(*_: object) -> _Prompted:
    return _Prompted()


class _Prompted:
    """Cursor's state: the prompt its beforeSubmitPrompt kept."""

    def text(self, _key: str) -> str:
        return "how do I cap vmmem?"


@pytest.mark.parametrize(
    ("event", "order"),
    [("Stop", ["finish", "capture"]), ("SessionEnd", ["capture", "finish"])],
)
def test_an_archive_left_is_finished_first_but_at_session_end_after_the_exchanges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, event: str, order: list[str]
) -> None:
    """Stop finishes a cut-off archive before its own work (the summary it files points at the
    whole archive); SessionEnd, the session's last event with 1.4 s, files the exchanges first."""
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in LINES))
    done: list[str] = []

    def finish(*_: object) -> None:
        done.append("finish")

    def capture(*_: object) -> None:
        done.append("capture")

    monkeypatch.setattr(actions, "finish_archive", finish)
    monkeypatch.setattr(actions, "capture", capture)
    payload: dict[str, object] = {
        "session_id": "s1", "cwd": str(tmp_path), "transcript_path": str(path),
        "hook_event_name": event,
    }  # fmt: skip

    claude_code.ADAPTER.handle(HookCall("claude-code", event, payload, cast(Config, None), 0.0))

    assert done == order


MESSAGES = [
    {"role": "user", "content": "how do I cap vmmem?"},
    {"role": "assistant", "content": "Cap it."},
]
ASKED = {"prompt": "how do I cap vmmem?", "prompt_response": "Cap it."}


@pytest.mark.parametrize(
    ("adapter", "event", "carried"),
    [
        (gemini.ADAPTER, "AfterAgent", ASKED),
        (cursor.ADAPTER, "afterAgentResponse", {"text": "Cap it."}),
        (hermes.ADAPTER, "sync_turn", {"user": "how do I cap vmmem?", "assistant": "Cap it."}),
        (hermes.ADAPTER, "session_end", {"messages": MESSAGES}),
    ],
    ids=["gemini", "cursor", "hermes-sync_turn", "hermes-session_end"],
)
def test_an_exchange_only_the_payload_holds_is_filed_before_an_archive_left(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    adapter: Adapter,
    event: str,
    carried: dict[str, object],
) -> None:
    """The parts an earlier hook left (9 MB: 9 parts of 1 to 2 s each) outlast a 10 s deadline;
    an exchange these events carry in their payload alone, filed after them, was lost."""
    filed: list[str] = []

    def gave_up(*_: object) -> None:
        raise GaveUp

    def capture(_config: object, _where: object, exchanges: list[Exchange]) -> None:
        filed.extend(e.user for e in exchanges)

    monkeypatch.setattr(actions, "finish_archive", gave_up)
    monkeypatch.setattr(actions, "capture", capture)
    monkeypatch.setattr(cursor, "session_state", _prompted)
    payload: dict[str, object] = {
        "session_id": "s1", "conversation_id": "s1", "cwd": str(tmp_path), **carried,
    }  # fmt: skip

    with pytest.raises(GaveUp):
        adapter.handle(HookCall(adapter.name, event, payload, cast(Config, None), 0.0))

    assert filed == ["how do I cap vmmem?"]
