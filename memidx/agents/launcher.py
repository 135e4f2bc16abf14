"""The command line a project's shared agent files run memidx by: the `memidx` on PATH, else
the one `make install` links in the user's bin folder, else nothing at all (exit 0), so one
committed file works for everyone and reads the same whoever installed it.

A project's `.claude/settings.json`, `.mcp.json`, `.codex/`, `.gemini/settings.json` and
`.cursor/` are committed and read on every teammate's machine, where the installing clone's
absolute path does not exist: each hook then failed at every event (and Gemini CLI 0.61.0 blocks
the prompt when a hook's command is not found). So these files run

    /bin/sh -c '<resolver>' memidx agent hook claude-code UserPromptSubmit

where the resolver execs `memidx` from PATH, else `make install`'s link (`memidx` in the first
absolute one of $MEMIDX_BIN_DIR, $XDG_BIN_HOME and ~/.local/bin, for an agent started with a
thin PATH, from a desktop launcher say), else prints what the agent takes for "nothing" (Gemini CLI:
`{}`) and exits 0. No path of the installing person's is in it: two teammates who both install
write the same bytes (no churn in the shared file, no re-trusting of Codex's hooks). Agents run
a hook's command through different shells (observed: Claude Code 2.1.197 `/bin/sh -c`; Codex
CLI 0.171.0 the login shell's `-c`, bash here, zsh or sh where that is the login shell, bash for
any other; Gemini CLI 0.61.0 `bash -c`; Cursor documents only "a shell command"):
`/bin/sh -c '...'` reads the same in any of them, so the resolver always runs under POSIX sh.
MCP entries take the same argv as `command` and `args`. Pure: values in, values out."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from memidx.frozen import Value

SHELL = "/bin/sh"
NAME = "memidx"
# how every resolver memidx ever wrote begins (the first, of 16249da, then fell back to the
# installing clone's path): a hook running one is memidx's (memidx/agents/hook_owner.py)
RESOLVER_START = f'command -v {NAME} >/dev/null 2>&1 && exec {NAME} "$@"; '
# the first absolute one of MEMIDX_BIN_DIR, XDG_BIN_HOME and ~/.local/bin, as locations.bin_dir:
# a relative value is ignored (the XDG specification calls it invalid; it would run whatever
# memidx the agent's working directory holds)
_HEAD = (
    RESOLVER_START
    + 'for d in "$MEMIDX_BIN_DIR" "$XDG_BIN_HOME" "$HOME/.local/bin"; do case $d in /*) '
    f'[ -x "$d/{NAME}" ] && exec "$d/{NAME}" "$@"; break;; esac; done; '
)
_EARLIER_HEADS = (  # what earlier versions wrote, still memidx's for status and uninstall
    RESOLVER_START + 'm="${MEMIDX_BIN_DIR:-${XDG_BIN_HOME:-$HOME/.local/bin}}/memidx"; '
    '[ -x "$m" ] && exec "$m" "$@"; ',
)
_TAIL = re.compile(r'exit 0|printf %s "(?:[^"\\$`]|\\.)*"', re.DOTALL)


class Launch(Value):
    """What a portable command runs: memidx with `args`."""

    args: tuple[str, ...]


def portable_argv(args: Sequence[str], otherwise: str = "") -> list[str]:
    """`/bin/sh -c RESOLVER memidx ARGS`: memidx from PATH, else the user's link, else print
    `otherwise` (nothing when empty) and exit 0."""
    return [SHELL, "-c", resolver(otherwise), NAME, *args]


def portable_command(args: Sequence[str], otherwise: str = "") -> str:
    """portable_argv() as one shell command line."""
    return shlex.join(portable_argv(args, otherwise))


def resolver(otherwise: str = "") -> str:
    """The sh script: exec memidx from PATH, else the user's link, with the script's arguments."""
    return _HEAD + (f"printf %s {_double_quoted(otherwise)}" if otherwise else "exit 0")


def _double_quoted(text: str) -> str:
    """`text` in double quotes for sh: readable inside the single quotes around the script
    (single quotes here would each become '"'"')."""
    return '"' + re.sub(r'([\\"$`])', r"\\\1", text) + '"'


def parse_launch(argv: Sequence[str]) -> Launch | None:
    """The Launch a portable argv (or a hook command split by shlex) runs; None for any other
    command, an absolute memidx path included."""
    if len(argv) < 4 or argv[0].rsplit("/", 1)[-1] != "sh" or argv[1] != "-c":
        return None
    script = argv[2]
    head = next((h for h in (_HEAD, *_EARLIER_HEADS) if script.startswith(h)), None)
    if head is None or argv[3] != NAME or _TAIL.fullmatch(script[len(head) :]) is None:
        return None
    return Launch(tuple(argv[4:]))
