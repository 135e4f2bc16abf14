"""`memidx agent status` of Codex's MCP server whose memidx is gone (its clone moved or
deleted): Codex then starts no memidx server, and status said only `MCP server memidx`, as if
all was well, while it named the gone memidx of Codex's hooks beside it (and of Claude Code's,
Gemini CLI's and Cursor's MCP servers)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.helpers import NotesRepo, run_in_process


def test_status_names_the_gone_memidx_of_codex_mcp_server(user_home: Path, repo: NotesRepo) -> None:
    assert run_in_process(repo.root, "agent", "install", "codex", "--scope", "user").code == 0
    [config] = [p for p in user_home.rglob("config.toml") if "memidx" in p.read_text()]
    gone = user_home / "old clone" / ".venv" / "bin" / "memidx"
    text = config.read_text()
    config.write_text(re.sub(r'(?m)^command = ".*"$', f"command = {json.dumps(str(gone))}", text))
    assert config.read_text() != text

    said = run_in_process(repo.root, "agent", "status", "codex")
    listed = run_in_process(repo.root, "agent", "status", "codex", "--json")

    line = (
        f"{config}: MCP server memidx (they run {gone}, which no longer exists: run `memidx "
        "agent install codex --scope user` again from your memory's clone)\n"
    )
    assert line in said.out, said.out
    assert (said.code, listed.code, json.loads(listed.out)["healthy"]) == (1, 1, False)


def test_status_of_codex_mcp_server_whose_memidx_is_there_says_no_more(
    user_home: Path, repo: NotesRepo
) -> None:
    assert run_in_process(repo.root, "agent", "install", "codex", "--scope", "user").code == 0
    [config] = [p for p in user_home.rglob("config.toml") if "memidx" in p.read_text()]

    said = run_in_process(repo.root, "agent", "status", "codex")

    assert f"{config}: MCP server memidx\n" in said.out, said.out
    assert said.code == 0, said.err
