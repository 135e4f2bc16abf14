"""Whether a hook's command is memidx's: the command memidx writes, parsed, not any command that
merely holds its words (`my-memidx-hook-wrapper`, `echo memidx agent hook claude-code Stop`
were taken for memidx's: install replaced them, uninstall removed them). Pure.

memidx has written three forms, each ending `agent hook <agent> <event>`: `<...>/memidx ...`
(a clone's or an installed script, by absolute path), `<python> -m memidx ...` (no script
beside the Python), and a project's `/bin/sh -c '<resolver>' memidx ...`
(memidx/agents/launcher.py; every resolver it ever wrote begins with RESOLVER_START). A
person may put environment variables or a time limit before it (`MEMIDX_ROOT=/srv/memory
<...>/memidx agent hook ...`, `env ...`, `timeout 5 ...`): still memidx's hook."""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Sequence
from pathlib import PurePath

from memidx.agents.launcher import NAME, RESOLVER_START, parse_launch

HOOK = ("agent", "hook")  # memidx's subcommand; then the agent and the event
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON = re.compile(r"(?:python|pypy)[0-9.]*t?(?:\.exe)?", re.IGNORECASE)
_DURATION = re.compile(r"[0-9]+(\.[0-9]+)?[smhd]?")
# an agent's or an event's name as memidx writes it: a word the shell reads as itself, not
# `Stop>>log` or `Stop;notify-send` (a command of the person's that runs memidx's hook)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
# the rest of 16249da's resolver after RESOLVER_START: the installing clone's memidx (a script,
# or a Python with `-m memidx`), as shlex.quote wrote its path, then what the agent takes for
# nothing; launcher.parse_launch reads every later one
_PATH = r"""(?:[^\s'"]|'[^']*'|"'")+"""
_FIRST_TAIL = re.compile(
    rf'\[ -x (?P<path>{_PATH}) \] && exec (?P=path)(?: -m {NAME})? "\$@"; '
    r'(?:exit 0|printf %s "(?:[^"\\$`]|\\.)*")',
    re.DOTALL,
)


def hook_args(command: str, *, wrapped: bool = True) -> list[str] | None:
    """`[agent, event]` when `command` runs memidx's hook as memidx writes it (after a wrapper
    of the person's, unless `wrapped` is False); None for any other command."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    args = memidx_args(unwrapped(argv) if wrapped else argv)
    if args is None or len(args) != 4 or tuple(args[:2]) != HOOK:
        return None
    if not all(_WORD.fullmatch(word) for word in args[2:]):
        return None
    return args[2:]


def memidx_args(argv: Sequence[str]) -> list[str] | None:
    """The arguments `argv` runs memidx with, in a form memidx writes; None for another."""
    if argv and PurePath(argv[0]).name == NAME:
        return list(argv[1:])
    if len(argv) > 2 and list(argv[1:3]) == ["-m", NAME] and _python(argv[0]):
        return list(argv[3:])
    if (
        len(argv) > 3
        and PurePath(argv[0]).name == "sh"
        and argv[1] == "-c"
        and argv[2].startswith(RESOLVER_START)
        and argv[3] == NAME
        and (parse_launch(argv) or _FIRST_TAIL.fullmatch(argv[2][len(RESOLVER_START) :]))
    ):  # memidx's resolver whole: with a tail of the person's (`curl ... | sh`), theirs
        return list(argv[4:])
    return None


def _python(program: str) -> bool:
    """Whether `program` is a Python, as memidx writes one before `-m memidx` (this process's
    own, or one named so): `echo -m memidx agent hook ...`, a command of the person's, was
    taken for memidx's hook, replaced on install and removed on uninstall."""
    name = PurePath(program).name
    return name == PurePath(sys.executable).name or _PYTHON.fullmatch(name) is not None


def unwrapped(argv: Sequence[str]) -> list[str]:
    """`argv` without what a person may put before memidx's command: `NAME=value` words,
    `env` with such words, `timeout DURATION`."""
    at = 0
    while at < len(argv):
        word, program = argv[at], PurePath(argv[at]).name
        if _ASSIGNMENT.match(word) or (program == "env" and at + 1 < len(argv)):
            at += 1
        elif program == "timeout" and at + 1 < len(argv) and _DURATION.fullmatch(argv[at + 1]):
            at += 2
        else:
            break
    return list(argv[at:])
