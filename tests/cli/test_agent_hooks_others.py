"""`memidx agent hook codex|gemini|cursor EVENT` with inputs in each agent's documented format
(Codex's rollout in the shape Codex CLI 0.171.0 writes it): capture of the turn once (recall:
tests/cli/test_codex_gemini_e2e.py), without the context Codex injected; archives before
compaction."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.cli.test_agent_hooks import memory
from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env


def hook(repo: NotesRepo, agent: str, event: str, payload: Mapping[str, object]) -> str:
    done = subprocess.run(
        [str(MEMIDX_BIN), "agent", "hook", agent, event], input=json.dumps(payload),
        cwd=repo.root.parent, capture_output=True, text=True, timeout=120, check=False,
        env=clean_env(MEMIDX_ROOT=str(repo.root), MEMIDX_HOOK_EMBED="0", MEMIDX_RECALL_IDLE="5",
                      MEMIDX_AGENT_DEADLINE="60"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def turns(repo: NotesRepo, query: str) -> list[dict[str, object]]:
    found = repo.memidx("search", "--json", "--kind", "turn", "--mode", "bm25", query)
    return list(found.json()["hits"])


def rollout(path: Path, answer: str) -> Path:
    def item(role: str, kind: str, text: str) -> dict[str, object]:
        return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}

    lines = [
        {"type": "session_meta", "payload": {"id": "s1", "cwd": str(path.parent)}},
        {"type": "response_item", "payload": item("developer", "input_text", "<skills_x>")},
        {"type": "response_item",
         "payload": item("user", "input_text", "<environment_context>cwd</environment_context>")},
        {"type": "response_item", "payload": item("user", "input_text", "how do I cap vmmem?")},
        {"type": "event_msg",
         "payload": {"type": "item_completed", "item": {"type": "UserMessage"}}},
        {"type": "response_item",
         "payload": item("developer", "input_text", "<memidx-recall>\nINJECTED\n</memidx-recall>")},
        {"type": "response_item",
         "payload": {"type": "function_call", "name": "shell",
                     "arguments": json.dumps({"command": ["cat", ".wslconfig"]})}},
        {"type": "response_item", "payload": item("assistant", "output_text", answer)},
    ]  # fmt: skip
    path.write_text("".join(json.dumps({"timestamp": "t", **x}) + "\n" for x in lines))
    return path


def test_codex_stop_files_the_turn_from_the_rollout_once(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    path = rollout(tmp_path / "rollout.jsonl", "Capped it with memory=6GB.")
    payload = {
        "session_id": "s1",
        "turn_id": "t1",
        "transcript_path": str(path),
        "cwd": str(tmp_path),
        "last_assistant_message": "Capped it with memory=6GB.",
    }

    hook(repo, "codex", "Stop", payload)
    hook(repo, "codex", "Stop", payload)

    hits = turns(repo, "Capped")
    assert len(hits) == 1
    text = json.dumps(hits[0])
    assert "INJECTED" not in text and "environment_context" not in text


def test_codex_stop_without_a_rollout_uses_the_kept_prompt(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    base = {"session_id": "s2", "turn_id": "t1", "transcript_path": None, "cwd": str(tmp_path)}
    hook(repo, "codex", "UserPromptSubmit", {**base, "prompt": "thanks, what about quokkas"})

    hook(repo, "codex", "Stop", {**base, "last_assistant_message": "Quokkas answer."})

    assert len(turns(repo, "Quokkas")) == 1


def test_codex_precompact_archives_the_rollout(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    path = rollout(tmp_path / "rollout.jsonl", "Archived answer.")

    hook(repo, "codex", "PreCompact", {"session_id": "s3", "transcript_path": str(path),
                                        "cwd": str(tmp_path), "trigger": "manual"})  # fmt: skip

    found = repo.memidx("search", "--json", "--kind", "transcript", "--mode", "bm25", "Archived")
    assert found.json()["hits"]


def test_gemini_prints_json_only_and_files_after_agent(tmp_path: Path) -> None:
    repo = memory(tmp_path)
    base = {"session_id": "g1", "cwd": str(tmp_path), "timestamp": "t"}

    off_topic = hook(repo, "gemini", "BeforeAgent", {**base, "prompt": "thanks"})
    hook(repo, "gemini", "AfterAgent",
         {**base, "prompt": "cap vmmem?", "prompt_response": "Gemini capped it."})  # fmt: skip

    assert json.loads(off_topic) == {}
    assert len(turns(repo, "Gemini")) == 1


def test_cursor_files_the_prompt_with_the_reply_and_lets_the_prompt_through(
    tmp_path: Path,
) -> None:
    repo = memory(tmp_path)
    base = {"conversation_id": "c1", "generation_id": "g1", "workspace_roots": [str(tmp_path)]}

    allowed = hook(repo, "cursor", "beforeSubmitPrompt", {**base, "prompt": "cap vmmem?"})
    hook(repo, "cursor", "afterAgentResponse", {**base, "text": "Cursor capped it."})
    start = hook(repo, "cursor", "sessionStart", base)

    assert json.loads(allowed) == {"continue": True}
    hits = turns(repo, "Cursor")
    assert len(hits) == 1 and "cap vmmem" in json.dumps(hits[0])
    assert start == "" or "additional_context" in json.loads(start)


def about_quillwort(tmp_path: Path) -> tuple[NotesRepo, Path]:
    """A memory with a note that names the project `quillwort` (so its digest is not empty)."""
    repo = NotesRepo(tmp_path / "memory")
    repo.note("deploy.md", "The quillwort deploy hangs", "the quillwort deploy waits on a lock")
    repo.commit("notes")
    assert repo.memidx("ingest").code == 0
    project = tmp_path / "quillwort"
    (project / ".git").mkdir(parents=True)
    return repo, project


def test_codex_session_start_gives_the_digest_once_per_session_and_compaction(
    tmp_path: Path,
) -> None:
    repo, project = about_quillwort(tmp_path)
    path = rollout(project / "rollout.jsonl", "It waits on a lock.")
    base = {"session_id": "s5", "cwd": str(project), "transcript_path": str(path)}

    def start(source: str, session: str = "s5") -> str:
        return hook(repo, "codex", "SessionStart", {**base, "session_id": session,
                                                    "source": source})  # fmt: skip

    assert "memidx-digest" in start("startup")
    assert start("resume") == ""  # the resumed context holds it
    hook(repo, "codex", "PreCompact", {**base, "trigger": "auto"})
    after = [start("resume"), start("compact")]  # what Codex 0.171.0 fires after compacting

    assert "memidx-digest" in after[0] and after[1] == ""
    assert "memidx-digest" in start("startup", session="s6")  # a new session gets its own


def test_gemini_gives_a_resumed_chat_no_digest_and_never_files_the_hook_context(
    tmp_path: Path,
) -> None:
    repo, project = about_quillwort(tmp_path)
    base = {"cwd": str(project), "timestamp": "t"}
    first = hook(repo, "gemini", "SessionStart", {**base, "session_id": "g5", "source": "startup"})
    digest = json.loads(first)["hookSpecificOutput"]["additionalContext"]
    # headless, Gemini CLI 0.61.0 puts the digest, escaped, before the person's prompt
    wrapped = digest.replace("<", "&lt;").replace(">", "&gt;")
    prompt = f"<hook_context>{wrapped}</hook_context>\n\nWhy does the quillwort deploy stall?"

    resumed = hook(repo, "gemini", "SessionStart", {**base, "session_id": "g6", "source": "resume"})
    hook(repo, "gemini", "AfterAgent", {**base, "session_id": "g5", "prompt": prompt,
                                        "prompt_response": "Gemini: the lock."})  # fmt: skip

    assert "memidx-digest" in digest and json.loads(resumed) == {}
    hits = turns(repo, "Gemini")
    assert len(hits) == 1 and "stall" in json.dumps(hits[0])
    assert "Recent memidx notes" not in repo.memidx("show", str(hits[0]["ref"])).out


@pytest.mark.parametrize(
    ("agent", "event", "expected"),
    [
        ("gemini", "BeforeAgent", {}),
        ("gemini", "AfterAgent", {}),
        ("cursor", "beforeSubmitPrompt", {"continue": True}),
    ],
)
def test_a_failed_hook_still_answers_the_json_its_agent_parses(
    tmp_path: Path, agent: str, event: str, expected: dict[str, object]
) -> None:
    repo = memory(tmp_path)

    done = subprocess.run(
        [str(MEMIDX_BIN), "agent", "hook", agent, event], input="{ not json",
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
        env=clean_env(MEMIDX_ROOT=str(repo.root)),
    )  # fmt: skip

    assert done.returncode == 0 and json.loads(done.stdout) == expected
    assert f"{agent} {event}" in repo.memidx("status").out


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (["claude-code", "NoSuchEvent"], ""),
        (["claude-code", "Stop", "--bad-flag"], ""),
        (["codex", "NoSuchEvent"], ""),
        (["codex", "--bad-flag"], ""),
        (["gemini", "NoSuchEvent"], "{}"),
        (["gemini", "BeforeAgent", "--bad-flag"], "{}"),
        (["cursor", "noSuchEvent"], ""),
        (["cursor", "beforeSubmitPrompt", "--bad-flag"], '{"continue": true}'),
        (["hermes", "no_such_event"], ""),
        (["hermes", "prefetch", "extra"], ""),
        (["no-such-agent", "Stop"], ""),
        (["--help"], ""),
        ([], ""),
    ],
)
def test_any_arguments_to_agent_hook_fail_open_with_the_agents_nothing(
    tmp_path: Path, arguments: list[str], expected: str
) -> None:
    repo = memory(tmp_path)

    done = subprocess.run(
        [str(MEMIDX_BIN), "agent", "hook", *arguments], input="{}",
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
        env=clean_env(MEMIDX_ROOT=str(repo.root)),
    )  # fmt: skip

    assert (done.returncode, done.stdout, done.stderr) == (0, expected, "")
    log = (repo.root / ".memidx" / "agent-hook-error.log").read_text()
    assert len(log.splitlines()) == 1
    assert "agent hook" in repo.memidx("status").out


def test_agent_hook_spelled_past_the_fast_path_runs_the_hook_not_install(tmp_path: Path) -> None:
    # `-CDIR` is parsed by argparse, not by the hook's fast path: it ran `agent install` once
    repo = memory(tmp_path)

    done = subprocess.run(
        [str(MEMIDX_BIN), f"-C{repo.root}", "agent", "hook", "claude-code", "NoSuchEvent"],
        input="{}", cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
        env=clean_env(MEMIDX_ROOT=str(repo.root)),
    )  # fmt: skip

    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert not (tmp_path / ".claude").exists() and not (repo.root / ".claude").exists()
    assert len((repo.root / ".memidx" / "agent-hook-error.log").read_text().splitlines()) == 1
