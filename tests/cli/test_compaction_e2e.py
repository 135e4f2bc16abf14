"""Compaction through the real Codex CLI and Gemini CLI, each pointed at a loopback stub of its
model API, after `memidx agent install codex|gemini --scope project` in a fresh project.

Codex 0.171.0: `codex exec` cannot run /compact (it sends it to the model as text), but with
`model_auto_compact_token_limit` under the prompt size the stub reports, `codex exec resume`
compacts before its turn: PreCompact archives the rollout, and the summary (the rollout's
`compacted` record) is filed with `summary_of` pointing at it; the exchange before the
compaction is filed once, without the compaction's output that Codex also writes as an
assistant message.

Gemini CLI 0.61.0 fires PreCompress before every request to the model, and compresses only when
the prompt reaches half the model's token limit: a run whose replies are small archives nothing;
a reply that reports 900,000 prompt tokens and calls a tool makes Gemini compress before its
next request, and memidx archives the session file once; a plain turn of the resumed session
after it archives nothing (Gemini counts a resumed chat by its estimate, not by the last reply's
900,000; the file holds a header line of the resume only when the resume starts in the minute
the file is named after, so both cases of the reader are tested in test_gemini_session.py).
Gemini writes the summary nowhere a hook can read it. No manual compression here: headless,
Gemini puts the SessionStart hook's context before the prompt, so `gemini -p /compress` is no
command (without context, it compresses in the background while it also sends "/compress" to
the model); test_compaction_hooks.py covers trigger "manual".

Skipped when a CLI is not on PATH (npm install -g @openai/codex @google/gemini-cli)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_codex_gemini_e2e import gemini_world, run, world
from tests.helpers import MEMIDX_BIN, NotesRepo
from tests.model_stubs import SUMMARY, ModelStub

QUESTION = "Why does the quillwort deploy hang on a lock?"
DIGEST = "Recent memidx notes and records about"  # the head of every session-start digest
CODEX = ["codex", "exec", "--trust", "--skip-git-repo-check", "--dangerously-bypass-hook-trust"]


def records(memory: NotesRepo, env: dict[str, str], kind: str, query: str) -> list[dict[str, Any]]:
    found = run([str(MEMIDX_BIN), "search", "--json", "--kind", kind, "--mode", "bm25", query],
                memory.root, env)  # fmt: skip
    assert found.returncode == 0, found.stderr
    return list(json.loads(found.stdout)["hits"])


def archived(memory: NotesRepo, env: dict[str, str], agent: str) -> list[dict[str, Any]]:
    """The transcripts `agent` archived (every one holds the session's first words)."""
    words = {"codex": "session_meta", "gemini": "Gemini CLI"}[agent]
    return [h for h in records(memory, env, "transcript", words) if h["meta"].get("agent") == agent]


def shown(memory: NotesRepo, env: dict[str, str], ref: str) -> str:
    done = run([str(MEMIDX_BIN), "show", ref], memory.root, env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def no_hook_errors(memory: NotesRepo) -> None:
    log = memory.root / ".memidx" / "agent-hook-error.log"
    assert not log.exists(), log.read_text()


@pytest.mark.skipif(shutil.which("codex") is None, reason="codex CLI not installed")
def test_codex_auto_compaction_archives_the_rollout_and_files_its_summary(
    tmp_path: Path, models_dir: Path
) -> None:
    with ModelStub("responses", prompt_tokens=5_000) as stub:
        memory, project, env = world(tmp_path, models_dir, STUB_KEY="dummy")
        config = tmp_path / "home" / ".codex" / "config.toml"
        config.parent.mkdir()
        config.write_text(
            'model = "stub-model"\nmodel_provider = "stub"\nmodel_context_window = 200000\n'
            "model_auto_compact_token_limit = 1000\n\n[model_providers.stub]\n"
            f'name = "stub"\nbase_url = "{stub.url}/v1"\nwire_api = "responses"\n'
            'env_key = "STUB_KEY"\n'
        )
        installed = run([str(MEMIDX_BIN), "agent", "install", "codex", "--scope", "project"],
                        project, env)  # fmt: skip
        assert installed.returncode == 0, installed.stderr
        first = run([*CODEX, QUESTION], project, env)
        assert first.returncode == 0, (first.stdout[-2000:], first.stderr[-2000:])
        assert not archived(memory, env, "codex")

        second = run([*CODEX[:2], "resume", "--last", *CODEX[2:], "And how does it fail fast?"],
                     project, env)  # fmt: skip

        assert second.returncode == 0, (second.stdout[-2000:], second.stderr[-2000:])
        assert any("CONTEXT CHECKPOINT COMPACTION" in b for b in stub.bodies), "no compaction"
        asked = [b for b in stub.bodies if "And how does it fail fast?" in b]
    # Codex fires SessionStart twice after compacting (source resume, then compact): one digest
    assert asked and asked[-1].count(DIGEST) == 1, asked[-1].count(DIGEST)
    rollout = archived(memory, env, "codex")
    assert len(rollout) == 1, rollout
    assert '"session_meta"' in shown(memory, env, rollout[0]["ref"])  # the rollout, verbatim
    summaries = [h for h in records(memory, env, "turn", "quillwort lock timeout")
                 if "compact-summary" in h["tags"]]  # fmt: skip
    assert len(summaries) == 1, summaries
    assert summaries[0]["meta"]["summary_of"] == rollout[0]["meta"]["id"]
    assert summaries[0]["meta"]["session"] == rollout[0]["meta"]["session"]
    text = shown(memory, env, summaries[0]["ref"])
    assert SUMMARY in text and "Another language model" not in text
    asked = [h for h in records(memory, env, "turn", "quillwort deploy hang")
             if "compact-summary" not in h["tags"]]  # fmt: skip
    assert len(asked) == 1, [h["snippet"] for h in asked]  # filed once, without the summary
    assert SUMMARY not in shown(memory, env, asked[0]["ref"])
    no_hook_errors(memory)


@pytest.mark.skipif(shutil.which("gemini") is None, reason="gemini CLI not installed")
def test_gemini_archives_the_session_only_when_it_compresses(
    tmp_path: Path, models_dir: Path
) -> None:
    with ModelStub("gemini") as stub:
        memory, project, env = gemini_world(tmp_path, models_dir, stub.url, "project")
        quiet = run(["gemini", "-p", QUESTION], project, env)
        assert quiet.returncode == 0, (quiet.stdout[-2000:], quiet.stderr[-2000:])
        assert not archived(memory, env, "gemini")  # PreCompress fired, Gemini did not compress
        stub.prompt_tokens = 900_000
        stub.tool = {"name": "list_directory", "args": {"dir_path": "."}}  # read-only: allowed

        loud = run(["gemini", "-r", "latest", "-p", "And how does it fail fast?"], project, env)

        assert loud.returncode == 0, (loud.stdout[-2000:], loud.stderr[-2000:])
        assert compressions(stub.bodies) == 1, "Gemini did not compress"
        once = archived(memory, env, "gemini")
        assert len(once) == 1, once
        assert "quillwort" in shown(memory, env, once[0]["ref"])  # the session file, verbatim
        assert '"sessionId"' in shown(memory, env, once[0]["ref"])
        stub.prompt_tokens, stub.tool = 10, None

        plain = run(["gemini", "-r", "latest", "-p", "And what about retries?"], project, env)

        assert plain.returncode == 0, (plain.stdout[-2000:], plain.stderr[-2000:])
        assert compressions(stub.bodies) == 1  # the resumed chat is counted by its estimate
    assert len(archived(memory, env, "gemini")) == 1  # its last reply's 900,000 does not count
    no_hook_errors(memory)


@pytest.mark.skipif(shutil.which("gemini") is None, reason="gemini CLI not installed")
def test_gemini_compress_as_the_prompt_of_a_resumed_session_is_a_command(
    tmp_path: Path, models_dir: Path
) -> None:
    """Headless, Gemini CLI puts SessionStart context before the prompt: memidx gives a resumed
    chat no digest (its history holds the first one), so `/compress` stays a command."""
    with ModelStub("gemini") as stub:
        memory, project, env = gemini_world(tmp_path, models_dir, stub.url, "project")
        first = run(["gemini", "-p", QUESTION], project, env)  # files a turn: a digest to give
        assert first.returncode == 0, (first.stdout[-2000:], first.stderr[-2000:])
        before = len(stub.bodies)

        done = run(["gemini", "-r", "latest", "-p", "/compress"], project, env)

        assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
        later = stub.bodies[before:]
        assert compressions(later) == 1, [b[-300:] for b in later]
        assert not any(DIGEST in b for b in later)
    assert len(archived(memory, env, "gemini")) == 1  # PreCompress, trigger manual
    no_hook_errors(memory)


def compressions(bodies: list[str]) -> int:
    """Gemini CLI 0.61.0's requests for a summary (every later request holds the summary too)."""
    return sum("generate the updated <state_snapshot>" in b for b in bodies)
