"""The real Claude Code CLI, pointed at a loopback stub of the Messages API, with memidx's hooks
installed by `memidx agent install claude-code --scope project` in a fresh project: recall
reaches the model's request, an off-topic prompt gets nothing, a turn is filed and recalled by
the next session, /compact archives the transcript, and a tool call reaches memidx's MCP search.

Skipped when `claude` is not on PATH (`.ci/run` installs it: npm install -g
@anthropic-ai/claude-code)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from tests.agent_servers import stop_servers_under
from tests.anthropic_stub import AnthropicStub, Block, last_user_text, request_text
from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env

CLAUDE = shutil.which("claude")
pytestmark = pytest.mark.skipif(
    CLAUDE is None,
    reason="the claude CLI is not installed (npm install -g @anthropic-ai/claude-code)",
)
TIMEOUT = 240  # seconds for one claude run on a loaded machine

NOTES = {
    "wsl/vmmem.md": (
        "WSL: vmmem eats all the memory",
        "vmmem grows until Windows runs out of RAM. Cap it in %UserProfile%\\.wslconfig with "
        "[wsl2] memory=6GB and run wsl --shutdown; the limit applies at the next start.",
    ),
    "postgres/lock-timeout.md": (
        "Postgres migrations hang on ACCESS EXCLUSIVE locks",
        "An ALTER TABLE waits behind a long transaction and blocks every query after it. Set "
        "lock_timeout = '5s' in the migration session and retry, so it fails fast instead.",
    ),
}


class World:
    """A memory with notes, a fresh project with memidx installed, a throwaway HOME (with the
    link to memidx that `make install` makes), a stub."""

    def __init__(self, root: Path, models: Path, stub: AnthropicStub) -> None:
        self.memory = NotesRepo(root / "memory")
        for name, (title, body) in NOTES.items():
            self.memory.note(name, title, body)
        self.memory.commit("notes")
        self.project = root / "project"
        self.project.mkdir()
        subprocess.run(["git", "init", "-q", str(self.project)], check=True, env=clean_env())
        home = root / "home"
        home.mkdir()
        self.home = home
        self.link = home / ".local" / "bin" / "memidx"  # what `make install` links
        self.link.parent.mkdir(parents=True)
        self.link.symlink_to(MEMIDX_BIN)
        self.stub = stub
        self.reply: list[list[Block]] = []  # queued replies; plain text when empty
        self.script: Callable[[dict[str, Any]], list[Block] | None] | None = None
        self.env = clean_env(
            HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
            XDG_CACHE_HOME=str(home / ".cache"), MEMIDX_ROOT=str(self.memory.root),
            MEMIDX_MODELS_DIR=str(models), MEMIDX_AGENT_DEADLINE="60", MEMIDX_RECALL_IDLE="120",
            ANTHROPIC_BASE_URL=stub.url, ANTHROPIC_API_KEY="sk-ant-test-dummy",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1",
            ENABLE_TOOL_SEARCH="false", MCP_CONNECTION_NONBLOCKING="false",
            # Claude Code gives an MCP server 30 s to start; a cold shared server on a loaded
            # machine (the SDK import, the model) has needed more; the session waits for it
            MCP_TIMEOUT="120000", MEMIDX_MCP_IDLE="300",
        )  # fmt: skip
        for args in (["ingest"], ["embed"]):
            assert self.memidx(*args, cwd=self.memory.root).returncode == 0
        installed = self.memidx("agent", "install", "claude-code", "--scope", "project")
        assert installed.returncode == 0, installed.stderr

    def memidx(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(MEMIDX_BIN), *args], cwd=cwd or self.project, env=self.env,
            capture_output=True, text=True, timeout=TIMEOUT, check=False,
        )  # fmt: skip

    def claude(
        self, *args: str, cwd: Path | None = None, path: str | None = None
    ) -> dict[str, Any]:
        """Run `claude ARGS --output-format json` (in `cwd`, with `path` as PATH); its result
        object, with the run's stderr as `stderr`."""
        assert CLAUDE is not None
        env = self.env if path is None else {**self.env, "PATH": path}
        done = subprocess.run(
            [CLAUDE, *args, "--output-format", "json"], cwd=cwd or self.project, env=env,
            capture_output=True, text=True, timeout=TIMEOUT, check=False,
        )  # fmt: skip
        assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
        return {**json.loads(done.stdout.strip().splitlines()[-1]), "stderr": done.stderr}

    def project_install(self, name: str) -> Path:
        """A new project with memidx installed in it (--scope project): what a team commits,
        the same on every teammate's machine (no path of the installing clone's in it)."""
        project = self.project.parent / name
        subprocess.run(["git", "init", "-q", str(project)], check=True, env=clean_env())
        installed = self.memidx(
            "agent", "install", "claude-code", "--scope", "project", cwd=project
        )
        assert installed.returncode == 0, installed.stderr
        for path in (project / ".claude" / "settings.json", project / ".mcp.json"):
            assert str(MEMIDX_BIN) not in path.read_text()
        return project

    def transcript(self, session: str) -> str:
        found = list((self.home / ".claude" / "projects").glob(f"*/{session}.jsonl"))
        assert found, f"no transcript of session {session}"
        return found[0].read_text()

    def respond(self, request: dict[str, Any]) -> list[Block]:
        scripted = self.script(request) if self.script else None
        if scripted is not None:
            return scripted
        if self.reply:
            return self.reply.pop(0)
        return [{"type": "text", "text": f"Stub reply #{len(self.stub.requests)}."}]

    def new_requests(self, since: int) -> list[dict[str, Any]]:
        return self.stub.messages()[since:]

    def records(self, kind: str, query: str) -> list[dict[str, Any]]:
        found = self.memidx("search", "--json", "--kind", kind, query, cwd=self.memory.root)
        assert found.returncode == 0, found.stderr
        return list(json.loads(found.stdout)["hits"])

    def stop_server(self) -> None:
        """Stop the recall servers the hooks started, and wait for them: signalled by the pid
        in `recall.pid` alone, one was still running as the run ended (and one starting, or
        started again after, none of its pid files named)."""
        stop_servers_under(self.memory.root)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, models_dir: Path) -> Iterator[World]:
    holder: list[World] = []

    def respond(request: dict[str, Any]) -> list[Block]:
        return holder[0].respond(request)

    with AnthropicStub(respond, max_requests=200) as stub:
        made = World(tmp_path_factory.mktemp("claude"), models_dir, stub)
        holder.append(made)
        try:
            yield made
        finally:
            made.stop_server()


def test_install_wrote_hooks_and_the_mcp_server(world: World) -> None:
    settings = json.loads((world.project / ".claude" / "settings.json").read_text())
    assert {"SessionStart", "UserPromptSubmit", "Stop", "PreCompact"} <= set(settings["hooks"])
    mcp = json.loads((world.project / ".mcp.json").read_text())
    assert mcp["mcpServers"]["memidx"]["args"][-1] == "mcp"
    assert mcp["mcpServers"]["memidx"]["command"] == "/bin/sh"  # memidx from PATH, else ours


def test_a_question_answered_by_a_note_reaches_the_model_with_the_note(world: World) -> None:
    before = len(world.stub.messages())

    world.claude("-p", "How do I stop vmmem from eating all the memory on my WSL machine?")

    sent = "\n".join(request_text(r) for r in world.new_requests(before))
    assert "<memidx-recall>" in sent
    assert "notes/wsl/vmmem.md" in sent
    assert ".wslconfig" in sent


def test_an_off_topic_prompt_gets_nothing_injected(world: World) -> None:
    before = len(world.stub.messages())

    world.claude("-p", "Write a limerick about a cat who learns to play the violin.")

    requests = world.new_requests(before)
    assert requests
    assert all("<memidx-recall>" not in request_text(r) for r in requests)


def test_a_turn_is_filed_and_a_new_session_recalls_it(world: World) -> None:
    world.reply.append(
        [{"type": "text", "text": "Noted: the invoice export job reruns nightly via quokka-sync."}]
    )
    first = world.claude(
        "-p", "Remember that the invoice export job is rerun every night by the quokka-sync timer."
    )

    turns = world.records("turn", "quokka-sync invoice export")
    assert turns, "the Stop hook filed no turn"
    assert turns[0]["meta"]["agent"] == "claude-code"
    assert turns[0]["meta"]["session"] == first["session_id"]
    assert turns[0]["meta"]["drawer"] == "project"
    assert world.memidx("embed", cwd=world.memory.root).returncode == 0
    before = len(world.stub.messages())

    world.claude("-p", "Which timer reruns the invoice export job every night?")

    sent = "\n".join(request_text(r) for r in world.new_requests(before))
    assert "<memidx-recall>" in sent
    assert "quokka-sync" in sent.split("<memidx-recall>", 1)[1]


def test_compact_archives_the_transcript(world: World) -> None:
    world.reply.append(
        [{"type": "text", "text": "Postgres migrations should set lock_timeout to fail fast."}]
    )
    session = world.claude("-p", "Why does my Postgres migration hang forever on a lock?")[
        "session_id"
    ]
    world.reply.append(
        [{"type": "text", "text": "<summary>The user asked about Postgres lock waits.</summary>"}]
    )

    world.claude("-p", "/compact", "--resume", session)

    archived = [
        h for h in world.records("transcript", "Postgres migration lock")
        if h["meta"].get("session") == session
    ]  # fmt: skip
    assert archived, "PreCompact archived no transcript"
    shown = world.memidx("show", archived[0]["ref"], cwd=world.memory.root)
    assert '"sessionId"' in shown.stdout  # the JSONL itself, verbatim
    errors = world.memory.root / ".memidx" / "agent-hook-error.log"
    assert not errors.exists(), errors.read_text()


def test_a_tool_call_reaches_memidx_mcp_search_and_returns_the_note(world: World) -> None:
    before = len(world.stub.messages())
    state: dict[str, Any] = {}

    def tool_call(request: dict[str, Any]) -> list[Block]:
        listed = cast(list[dict[str, Any]], request.get("tools") or [])
        tools = {str(t.get("name")): t for t in listed}
        state["tools"] = sorted(tools)
        schema = cast(dict[str, Any], tools.get("mcp__memidx__search", {}).get("input_schema", {}))
        field = str(cast(list[str], schema.get("required") or ["query"])[0])
        return [{"type": "tool_use", "name": "mcp__memidx__search", "input": {field: "vmmem"}}]

    calls = {"n": 0}

    def scripted(request: dict[str, Any]) -> list[Block] | None:
        calls["n"] += 1
        return tool_call(request) if calls["n"] == 1 else None

    world.script = scripted
    try:
        world.claude(
            "-p", "Look it up in memidx: WSL memory", "--allowedTools", "mcp__memidx__search"
        )
    finally:
        world.script = None

    assert "mcp__memidx__search" in state["tools"]
    later = world.new_requests(before)[1:]
    results = [last_user_text(r) for r in later]
    assert any("vmmem" in text and "notes/wsl/vmmem.md" in text for text in results), results


# A project install is committed and runs on teammates' machines: its hooks and MCP server run
# the memidx on PATH, else `make install`'s link in ~/.local/bin, else nothing
# (memidx/agents/launcher.py).
THIN_PATH = "/usr/bin:/bin"  # claude, git and sh; no memidx (HOME is the test's own)
QUESTION = "How do I stop vmmem from eating all the memory on my WSL machine?"


def test_a_teammates_memidx_on_path_recalls_through_the_committed_install(
    world: World, tmp_path: Path
) -> None:
    project = world.project_install("teammate")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "memidx").symlink_to(MEMIDX_BIN)  # the teammate's own memidx, by `make install`
    before = len(world.stub.messages())

    result = world.claude("-p", QUESTION, cwd=project, path=f"{bin_dir}:{THIN_PATH}")

    requests = world.new_requests(before)
    sent = "\n".join(request_text(r) for r in requests)
    assert "<memidx-recall>" in sent and "notes/wsl/vmmem.md" in sent
    listed = [cast(list[dict[str, Any]], r.get("tools") or []) for r in requests]
    tools = {str(t.get("name")) for each in listed for t in each}
    assert "mcp__memidx__search" in tools  # the MCP server started from PATH too
    assert "hook_non_blocking_error" not in world.transcript(result["session_id"])


def test_without_memidx_on_path_the_users_link_recalls(world: World) -> None:
    """An agent started with a thin PATH (a desktop launcher's, say) finds the memidx that
    `make install` linked in ~/.local/bin."""
    project = world.project_install("launcher")
    before = len(world.stub.messages())

    world.claude("-p", QUESTION, cwd=project, path=THIN_PATH)

    sent = "\n".join(request_text(r) for r in world.new_requests(before))
    assert "<memidx-recall>" in sent and "notes/wsl/vmmem.md" in sent


def test_with_no_memidx_anywhere_claude_answers_and_no_hook_fails(world: World) -> None:
    """A teammate without memidx: before, every event's hook failed ("/bin/sh: 1:
    /home/.../memidx: not found" on stderr and in the transcript)."""
    project = world.project_install("no-memidx")
    world.reply.append([{"type": "text", "text": "Cap it in .wslconfig, said the stub."}])
    before = len(world.stub.messages())
    world.link.rename(world.link.with_name("away"))  # no `make install` on this machine
    try:
        result = world.claude("-p", QUESTION, cwd=project, path=THIN_PATH)
    finally:
        world.link.with_name("away").rename(world.link)

    assert result["result"] == "Cap it in .wslconfig, said the stub." and not result["is_error"]
    assert "hook" not in result["stderr"].lower(), result["stderr"]
    transcript = world.transcript(result["session_id"])
    assert "hook_non_blocking_error" not in transcript and "not found" not in transcript
    assert all("<memidx-recall>" not in request_text(r) for r in world.new_requests(before))
