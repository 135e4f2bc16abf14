"""`memidx agent hook codex|gemini` at compaction, with inputs in the shape the real CLIs sent
and wrote (Codex CLI 0.171.0, Gemini CLI 0.61.0; the same run through the real CLIs:
tests/cli/test_compaction_e2e.py, skipped where a CLI is not installed).

Codex: PreCompact and PostCompact carry only `trigger`; the summary is the rollout's
`compacted` record, after a preamble Codex writes for the model, and the compaction's output
is also written as an assistant message marked `compaction_output`. Gemini: PreCompress fires
before every request to the model, so memidx archives only when Gemini is about to compress."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tests.cli.test_agent_hooks import memory
from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env

SUMMARY = "The session was about the quillwort deploy and its lock timeout."
PREAMBLE = (
    "Another language model started to solve this problem and produced a summary of its "
    "thinking process. You also have access to the state of the tools that were used by that "
    "language model. Use this to build on the work that has already been done and avoid "
    "duplicating work. Here is the summary produced by the other language model, use the "
    "information in this summary to assist with your own analysis:\n"
)


def hook(repo: NotesRepo, agent: str, event: str, payload: Mapping[str, object]) -> None:
    done = subprocess.run(
        [str(MEMIDX_BIN), "agent", "hook", agent, event], input=json.dumps(payload),
        cwd=repo.root.parent, capture_output=True, text=True, timeout=120, check=False,
        env=clean_env(MEMIDX_ROOT=str(repo.root), MEMIDX_HOOK_EMBED="0", MEMIDX_RECALL_IDLE="5",
                      MEMIDX_AGENT_DEADLINE="60",
                      GEMINI_CLI_SYSTEM_SETTINGS_PATH=str(repo.root / "no-system-settings")),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    errors = repo.root / ".memidx" / "agent-hook-error.log"
    assert not errors.exists(), errors.read_text()


def records(repo: NotesRepo, kind: str, query: str) -> list[dict[str, Any]]:
    found = repo.memidx("search", "--json", "--kind", kind, "--mode", "bm25", query)
    return list(found.json()["hits"])


def summaries(repo: NotesRepo) -> list[dict[str, Any]]:
    return [h for h in records(repo, "turn", "quillwort") if "compact-summary" in h["tags"]]


def message(role: str, text: str, **metadata: object) -> dict[str, object]:
    kind = "output_text" if role == "assistant" else "input_text"
    payload = {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}
    record: dict[str, object] = {"type": "response_item", "payload": payload}
    return {**record, "metadata": metadata} if metadata else record


def write_jsonl(path: Path, lines: Sequence[Mapping[str, object]]) -> Path:
    path.write_text("".join(json.dumps({"timestamp": "t", **x}) + "\n" for x in lines))
    return path


def test_codex_compaction_files_the_summary_pointing_at_the_rollout_and_each_turn_once(
    tmp_path: Path,
) -> None:
    repo = memory(tmp_path)
    before = [
        {"type": "session_meta", "payload": {"id": "c1", "cwd": str(tmp_path)}},
        message("user", "Why does the quillwort deploy hang on a lock?"),
        message("assistant", "Set lock_timeout so the quillwort migration fails fast."),
    ]
    after = [
        message("assistant", SUMMARY, compaction_output=True),
        {"type": "compacted", "payload": {"message": PREAMBLE + SUMMARY,
                                          "replacement_history": [message("user", "x")]}},
        message("user", "And how does the quillwort retry work?"),
        message("assistant", "The quillwort retry waits five."),
    ]  # fmt: skip
    rollout = tmp_path / "rollout.jsonl"
    base = {"session_id": "c1", "turn_id": "t1", "transcript_path": str(rollout),
            "cwd": str(tmp_path), "model": "stub-model"}  # fmt: skip
    write_jsonl(rollout, before)
    last = "Set lock_timeout so the quillwort migration fails fast."
    hook(repo, "codex", "Stop", {**base, "stop_hook_active": False, "last_assistant_message": last})
    hook(repo, "codex", "PreCompact", {**base, "trigger": "auto"})
    write_jsonl(rollout, before + after)

    hook(repo, "codex", "PostCompact", {**base, "trigger": "auto"})

    archived = records(repo, "transcript", "quillwort")
    assert len(archived) == 1
    filed = summaries(repo)
    assert len(filed) == 1  # at PostCompact, before the turn ends
    stop = {"turn_id": "t2", "last_assistant_message": "The quillwort retry waits five."}
    hook(repo, "codex", "Stop", {**base, **stop, "stop_hook_active": False})
    assert len(summaries(repo)) == 1
    assert filed[0]["meta"]["summary_of"] == archived[0]["meta"]["id"]
    text = repo.memidx("show", filed[0]["ref"]).out
    assert SUMMARY in text and "Another language model" not in text
    turns = [h for h in records(repo, "turn", "quillwort") if "compact-summary" not in h["tags"]]
    assert len(turns) == 2, [h["snippet"] for h in turns]  # the first turn once, then the second


def gemini_session(path: Path, replies: list[tuple[str, int, bool]]) -> Path:
    """A Gemini CLI 0.61.0 session file: a prompt and a reply (its prompt size, whether it calls
    a tool, whose result comes back as a user message) per entry."""
    context = {"id": "ctx", "type": "user", "content": [{"text": "<session_context>Gemini CLI"}]}
    lines: list[dict[str, object]] = [
        {"sessionId": "g1", "projectHash": "h", "startTime": "t", "lastUpdated": "t",
         "kind": "main"},
        {"$set": {"messages": [context]}},
    ]  # fmt: skip
    for n, (prompt, tokens, calls) in enumerate(replies):
        lines.append({"id": f"u{n}", "type": "user", "content": [{"text": prompt}]})
        reply: dict[str, object] = {
            "id": f"g{n}", "type": "gemini", "content": "" if calls else "An answer.",
            "tokens": {"input": tokens, "output": 5, "total": tokens + 5},
            "model": "gemini-3.8-flash",
        }  # fmt: skip
        if calls:
            reply["toolCalls"] = [{"id": "c", "name": "list_directory", "args": {"dir_path": "."}}]
        lines.append(reply)
        if calls:
            result = {"functionResponse": {"id": "c", "name": "list_directory",
                                           "response": {"output": "a listing"}}}  # fmt: skip
            lines.append({"id": f"r{n}", "type": "user", "content": [result]})
        lines.append({"$set": {"lastUpdated": "t"}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_gemini_precompress_archives_only_when_gemini_compresses(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    path = tmp_path / "session-g1.jsonl"
    base = {"session_id": "g1", "transcript_path": str(path), "cwd": str(tmp_path),
            "hook_event_name": "PreCompress", "timestamp": "t"}  # fmt: skip

    gemini_session(path, [("quillwort one", 10, False)])
    hook(repo, "gemini", "PreCompress", {**base, "trigger": "auto"})  # small: no compression
    gemini_session(path, [("quillwort one", 900_000, True)])
    hook(repo, "gemini", "PreCompress", {**base, "trigger": "auto"})  # nothing before the prompt
    assert not records(repo, "transcript", "Gemini")

    gemini_session(path, [("quillwort one", 10, False), ("quillwort two", 900_000, True)])
    hook(repo, "gemini", "PreCompress", {**base, "trigger": "auto"})

    assert len(records(repo, "transcript", "Gemini")) == 1


def test_gemini_precompress_follows_the_threshold_and_a_manual_compress(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    path = gemini_session(tmp_path / "session-g2.jsonl", [("quillwort", 1_000, False)])
    base = {"session_id": "g2", "transcript_path": str(path), "cwd": str(tmp_path)}

    hook(repo, "gemini", "PreCompress", {**base, "trigger": "auto"})
    assert not records(repo, "transcript", "Gemini")
    hook(repo, "gemini", "PreCompress", {**base, "trigger": "manual"})  # /compress
    assert len(records(repo, "transcript", "Gemini")) == 1
    settings = tmp_path / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"model": {"compressionThreshold": 0.0005}}))
    gemini_session(path, [("quillwort", 1_000, False), ("again", 1_000, False)])

    hook(repo, "gemini", "PreCompress", {**base, "trigger": "auto"})  # 1,000 >= 0.0005 x 1M

    assert len(records(repo, "transcript", "Gemini")) == 2


def test_gemini_precompress_after_a_compression_and_a_resume_archives_nothing(
    tmp_path: Path,
) -> None:
    """As Gemini CLI 0.61.0 wrote it: a reply of 900,000 prompt tokens, the compression (the whole
    history set anew), a reply that still reported 900,000, then `gemini -r latest`, which sets
    the history again in the same file (no header line) and counts its estimate: a plain turn."""
    repo = memory(tmp_path)
    path = gemini_session(tmp_path / "session-g3.jsonl", [("quillwort one", 900_000, True)])
    snapshot = {"id": "s", "type": "user", "content": [{"text": "<state_snapshot>quillwort"}]}
    got = {"id": "k", "type": "gemini", "content": [{"text": "Got it."}]}
    after = {"id": "g9", "type": "gemini", "content": "An answer.", "model": "gemini-3.8-flash",
             "tokens": {"input": 900_000, "output": 5, "total": 900_005}}  # fmt: skip
    history = [snapshot, got, after]
    asked = {"id": "u9", "type": "user", "content": [{"text": "And what about retries?"}]}
    lines = [{"$set": {"messages": history[:2]}}, after, {"$set": {"sessionId": "g3"}},
             {"$set": {"messages": history}}, asked]  # fmt: skip
    with path.open("a") as out:
        out.write("".join(json.dumps(line) + "\n" for line in lines))
    base = {"session_id": "g3", "transcript_path": str(path), "cwd": str(tmp_path)}

    hook(repo, "gemini", "PreCompress", {**base, "trigger": "auto"})

    assert not records(repo, "transcript", "Gemini")
