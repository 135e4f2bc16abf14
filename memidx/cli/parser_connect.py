"""The parser's commands that connect memidx to agents and their clients: `agent` (and, with
the user-level memory and the MCP server, `memory` and `mcp`)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memidx.cli.parser import Commands


def connection_commands(commands: Commands) -> None:
    """Add the connecting commands to the parser."""
    _agent_commands(commands)
    _mcp_command(commands)
    _user_memory_command(commands)


def json_flag(
    p: argparse.ArgumentParser, what: str = "the result", default: object = False
) -> None:
    p.add_argument("--json", action="store_true", default=default, help=f"print {what} as JSON")


def _agent_commands(commands: Commands) -> None:
    p = commands.add(
        "agent",
        "recall and capture in coding agents: install memidx's hooks and MCP server",
        "agent:agent",
    )
    p.add_argument(
        "action",
        choices=("install", "uninstall", "status", "serve", "hook", "finish-archives"),
        help="install/uninstall: memidx's hooks and MCP entry in the agent's settings; "
        "status: what is installed where; serve: the warm recall server the prompt hook "
        "starts; hook: what the agent runs (JSON on stdin, never fails); finish-archives: "
        "file every transcript a hook cut off before a compaction left, the agent's (every "
        "agent's when none is named)",
    )
    p.add_argument(
        "agent",
        nargs="?",
        choices=("claude-code", "codex", "gemini", "cursor", "hermes"),
        default=None,  # claude-code, but for finish-archives: every agent
        help="the agent (claude-code when none is named; finish-archives: every agent)",
    )
    p.add_argument("event", nargs="?", help="with hook: the agent's event, e.g. UserPromptSubmit")
    p.add_argument("--scope", choices=("user", "project"), default=None,  # None: project
                   help="project (default; hermes has only user): this project's files; user: "
                   "the user's")  # fmt: skip
    p.add_argument("--dry-run", action="store_true", help="say what would change, change nothing")
    json_flag(p, "what was done")


def _mcp_command(commands: Commands) -> None:
    p = commands.add(
        "mcp",
        "serve the memory to MCP clients (agents): over stdio, or streamable HTTP with --http",
        "mcp:mcp",
    )
    p.add_argument("--http", action="store_true", help="serve streamable HTTP (default: stdio)")
    p.add_argument(
        "--own",
        action="store_true",
        help="stdio: serve this session in this process, not through the memory's shared "
        "server (also MEMIDX_MCP_SHARED=0, or false/no/off)",
    )
    p.add_argument("--daemon", metavar="SOCKET", help=argparse.SUPPRESS)  # the shared server
    p.add_argument("--port", type=int, help="with --http: the TCP port (default 8765)")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="with --http: the address to bind (default 127.0.0.1; others need --allow-remote)",
    )
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="with --http: allow a non-loopback --host; requires a bearer token in "
        "$MEMIDX_MCP_TOKEN, checked on every request",
    )


def _user_memory_command(commands: Commands) -> None:
    p = commands.add(
        "memory", "show or switch the memory that answers from any directory", "user:memory"
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    show = actions.add_parser("show", help="which memory answers here, and why (the default)")
    # none of its own when not given: `memory --json show` printed the people's text (a
    # sub-command's default replaces what its parent's options set)
    json_flag(show, default=argparse.SUPPRESS)
    use = actions.add_parser("use", help="record PATH as your memory (in the user configuration)")
    use.add_argument("folder", metavar="PATH", help="the folder of a memidx memory (a clone)")
    use.add_argument(
        "--if-unset",
        action="store_true",
        help="only when no memory is recorded yet (what `make install` runs)",
    )
    json_flag(p)
