"""Which `mcpServers` entry (or Codex table) runs memidx's MCP server, whichever clone or memidx
wrote it, and the flags of `memidx mcp` a person added to it (pure)."""

from __future__ import annotations

import shlex
from collections.abc import Collection, Mapping, Sequence
from pathlib import PurePath
from typing import cast

from memidx.agents.launcher import parse_launch


def is_our_server(entry: object) -> bool:
    """Whether an `mcpServers` entry is one a memidx wrote (this one or another clone's):
    `<...>/memidx mcp`, `<python> -m memidx mcp` or a project's portable `/bin/sh -c ...
    memidx mcp`, maybe with flags of `memidx mcp` the person added (`--own`)."""
    return mcp_flags(unwrapped(server_argv(entry))) is not None


VALUED = ("--port", "--host")  # the options of `memidx mcp` that take a value


def mcp_flags(argv: Sequence[str]) -> list[str] | None:
    """The options after `mcp` in the argv of memidx's MCP server (`--own`, `--port 8765`);
    None when `argv` runs anything else."""
    launch = parse_launch(argv)
    if launch is not None:
        head, rest = [], list(launch.args)
    elif "mcp" in argv:
        at = list(argv).index("mcp")
        head, rest = list(argv[:at]), list(argv[at:])
        memidx = (len(head) == 1 and PurePath(head[0]).stem == "memidx") or head[1:] == [
            "-m",
            "memidx",
        ]
        if not memidx:
            return None
    else:
        return None
    if rest[:1] != ["mcp"]:
        return None
    flags, at = rest[1:], 0
    while at < len(flags):
        if not flags[at].startswith("-"):
            return None
        at += 2 if flags[at] in VALUED else 1
    return flags


def exec_script(argv: Sequence[str]) -> list[str]:
    """The command of `sh -c 'exec COMMAND "$@"' memidx mcp [flags]` (Gemini CLI's entry for a clone
    whose path holds a `$`, or for a project: memidx/agents/gemini_install.py); [] for any
    other argv."""
    if len(argv) < 5 or PurePath(argv[0]).name != "sh" or argv[1:2] != ["-c"]:
        return []
    try:
        words = shlex.split(argv[2])
    except ValueError:
        return []
    ok = words[:1] == ["exec"] and words[-1:] == ["$@"] and argv[3:5] == ["memidx", "mcp"]
    return words[1:-1] if ok else []


def unwrapped(argv: Sequence[str]) -> list[str]:
    """The argv an `sh -c 'exec COMMAND "$@"' memidx mcp` entry runs (COMMAND and `mcp`);
    any other argv as it is."""
    inner = exec_script(argv)
    return [*inner, *argv[4:]] if inner else list(argv)


def server_argv(entry: object) -> list[str]:
    """An `mcpServers` entry's command and arguments, as one argv ([] when it has none)."""
    found = cast(dict[str, object], entry) if isinstance(entry, dict) else {}
    command, args = found.get("command"), found.get("args")
    listed = cast(list[object], args) if isinstance(args, list) else []
    argv = [command, *listed]
    return [str(a) for a in argv] if all(isinstance(a, str) for a in argv) else []


SERVER_KEYS = ("command", "args")  # what runs memidx's server: install writes them anew


def persons_keys(
    found: Mapping[str, object],
    entry: Mapping[str, object],
    earlier: Mapping[str, Collection[object]],
) -> dict[str, object]:
    """The keys of memidx's `mcpServers` entry `found` that are the person's: any but its
    command and args whose value is neither the one this memidx writes (`entry`) nor one an
    earlier memidx wrote there (`earlier`, per key): a key they added (`env`), a value they
    changed (Gemini CLI's `timeout`)."""
    return {
        key: value
        for key, value in found.items()
        if key not in SERVER_KEYS
        and not (key in entry and value == entry[key])
        and value not in earlier.get(key, ())
    }
