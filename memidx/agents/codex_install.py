"""Where Codex CLI's hooks and MCP servers live, and memidx's entries in them.

Hooks go to `~/.codex/hooks.json` (user) or the repository's `.codex/hooks.json` (project), in
Claude Code's shape; the MCP server to `[mcp_servers.memidx]` in the `config.toml` beside it,
as one marked block (memidx/agents/text_install.py), so every other line of the file stays as
it was. `CODEX_HOME` moves the user's files. Codex runs a hook it does not manage only once
someone has trusted it in its `/hooks` screen (or with `--dangerously-bypass-hook-trust`)."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

from memidx.agents.codex import EVENTS, NAME
from memidx.agents.install import ConfigFile, memidx_argv, project_root, shell_command
from memidx.agents.settings import LEFT_ALONE, Json, hooked_events, merge_hooks, remove_hooks
from memidx.agents.text_install import TextFile, drop_block, find_block, put_block
from memidx.errors import MemidxError

MARKER = f"agent hook {NAME}"
SERVER = "memidx"


def hooks() -> dict[str, dict[str, object]]:
    return {
        event: {"type": "command", "command": shell_command("agent", "hook", NAME, event),
                "timeout": timeout}
        for event, (timeout, _) in EVENTS.items()
    }  # fmt: skip


def _install_hooks(doc: Json) -> Json:
    return merge_hooks(doc, hooks(), MARKER)


def _uninstall_hooks(doc: Json) -> Json:
    return remove_hooks(doc, MARKER)


def _hooks_state(doc: Json) -> list[str]:
    events = hooked_events(doc, MARKER)
    return [f"hooks: {', '.join(events)}"] if events else []


def mcp_block() -> str:
    argv = memidx_argv()
    args = ", ".join(json.dumps(a) for a in [*argv[1:], "mcp"])
    return f"[mcp_servers.{SERVER}]\ncommand = {json.dumps(argv[0])}\nargs = [{args}]\n"


def _parsed(text: str, path: Path) -> dict[str, object]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MemidxError(f"{path} is not valid TOML: {exc}", LEFT_ALONE) from exc


def _install_mcp(path: Path):
    def install(text: str) -> str:
        outside = drop_block(text)
        servers = _parsed(outside, path).get("mcp_servers")
        if isinstance(servers, dict) and SERVER in servers:
            raise MemidxError(
                f"{path} already has an [mcp_servers.{SERVER}] that memidx did not add",
                "remove it, or leave it: memidx's hooks work without it",
            )
        after = put_block(text, mcp_block())
        _parsed(after, path)  # never write a file Codex could not read
        return after

    return install


def _mcp_state(text: str) -> list[str]:
    return [f"MCP server {SERVER}"] if text and find_block(text) is not None else []


def user_dir() -> Path:
    configured = os.environ.get("CODEX_HOME")
    return Path(configured).expanduser() if configured else Path.home() / ".codex"


def config_files(scope: str, cwd: Path) -> list[ConfigFile | TextFile]:
    folder = project_root(cwd) / ".codex" if scope == "project" else user_dir()
    toml = folder / "config.toml"
    return [
        ConfigFile(folder / "hooks.json", _install_hooks, _uninstall_hooks, _hooks_state),
        TextFile(toml, _install_mcp(toml), drop_block, _mcp_state),
    ]
