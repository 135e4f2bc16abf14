"""Whether a hook's command is memidx's: the command memidx writes, parsed, not any command that
merely holds its words (`my-memidx-hook-wrapper`, `echo memidx agent hook claude-code Stop`
were taken for memidx's: install replaced them, uninstall removed them). Pure.

memidx has written three forms, each ending `agent hook <agent> <event>`: `<...>/memidx ...`
(a clone's or an installed script, by absolute path), `<python> -m memidx ...` (no script
beside the Python), and a project's `/bin/sh -c '<resolver>' memidx ...`
(memidx/agents/launcher.py; every resolver it ever wrote begins with RESOLVER_START). A
person may put a wrapper before it (`MEMIDX_ROOT=/srv/memory <...>/memidx agent hook ...`,
`env -u NAME ...`, `timeout -k 1 5 ...`, `nice -n 5 ...`, `ionice -c3 ...`, `exec ...`): still
memidx's hook. Each wrapper's options are read as it reads them (WRAPPERS), so an option's
value is never taken for the command (`env -u memidx agent hook ...` runs `agent`); and each
word as the shell reads it: a quoted `'A=1'` is a program's name, no assignment, and `exec`
after `nice` a program's, no builtin."""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Sequence
from pathlib import PurePath

from memidx.agents.launcher import NAME, RESOLVER_START, parse_launch
from memidx.frozen import Value

HOOK = ("agent", "hook")  # memidx's subcommand; then the agent and the event
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# a word as the shell's text, quotes and escapes kept, split where shlex splits (its blanks)
_RAW_WORD = re.compile(r"""(?:[^ \t\r\n'"\\]|\\.|'[^']*'|"(?:[^"\\]|\\.)*")+""", re.DOTALL)
_PYTHON = re.compile(r"(?:python|pypy)[0-9.]*t?(?:\.exe)?", re.IGNORECASE)
_DURATION = re.compile(r"([0-9]+(\.[0-9]*)?|\.[0-9]+)[smhd]?")
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
        if _operators(command):
            return None
    except ValueError:
        return None
    args = memidx_args(unwrapped(argv, shell_assignments(command)) if wrapped else argv)
    if args is None or len(args) != 4 or tuple(args[:2]) != HOOK:
        return None
    if not all(_WORD.fullmatch(word) for word in args[2:]):
        return None
    return args[2:]


def _operators(command: str) -> bool:
    """Whether the shell reads an operator in `command` outside quotes and escapes (`;`,
    `&&`, `|`, `>`, `(`, a newline), or a command's substitution outside single quotes
    (`` `...` ``, `$(...)`, in double quotes too): `nice -n 5;evil <...>/memidx agent hook
    ...` runs a program of the person's first, and shlex.split kept `5;evil` as one word, so
    the command was taken for memidx's hook, replaced on install and removed on uninstall."""
    quote, escaped, previous = "", False, ""
    for char in command:
        dollar, previous = previous == "$", char
        if escaped:
            escaped, previous = False, ""  # an escaped `$` begins no substitution
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote == "'":
            quote = "" if char == quote else quote
        elif char == "`" or (char == "(" and dollar):
            return True  # the shell runs what is inside, quoted in "..." or not
        elif quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in ";&|()<>\n":
            return True
    return False


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


class Wrapper(Value):
    """A program that runs the command after it (GNU's and util-linux's, and the shell's
    `command` and `exec`), by its options: those that take no value, those that take one (the
    next word, or the rest of the word: `-k1`, `--kill-after=1`), those whose value is
    optional (`--block-signal[=SIG]`); and a word it takes before the command (`timeout`'s
    duration). Its options end at its first other word, as each of them reads them. A shell's
    builtin is one only as the shell's command (`A=1 exec ...`, `command exec ...`), not as
    a word another wrapper runs (`nice exec ...` runs a program named `exec`)."""

    flags: frozenset[str] = frozenset()
    valued: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()
    operand: re.Pattern[str] | None = None
    legacy: re.Pattern[str] | None = None  # an old spelling of an option (`nice -5`)
    assignments: bool = False  # `NAME=value` words after the options (env's)
    builtin: bool = False  # the shell's own: only where the shell reads a command's name
    shell_after: bool = False  # the word after it is read by the shell still (`command`'s)


# An option not listed (`env -S`, `ionice -p`, `command -v`: they run no command, or one
# memidx cannot read) leaves the command the person's.
WRAPPERS = {
    "env": Wrapper(
        flags=frozenset({"i", "ignore-environment", "v", "debug", "list-signal-handling", ""}),
        valued=frozenset({"u", "unset", "C", "chdir"}),
        optional=frozenset({"block-signal", "default-signal", "ignore-signal"}),
        assignments=True,
    ),
    "timeout": Wrapper(
        flags=frozenset({"v", "verbose", "foreground", "preserve-status"}),
        valued=frozenset({"k", "kill-after", "s", "signal"}),
        operand=_DURATION,
    ),
    "nice": Wrapper(valued=frozenset({"n", "adjustment"}), legacy=re.compile(r"--?[0-9]+")),
    "ionice": Wrapper(
        flags=frozenset({"t", "ignore"}), valued=frozenset({"c", "class", "n", "classdata"})
    ),
    "nohup": Wrapper(),
    "command": Wrapper(flags=frozenset({"p"}), builtin=True, shell_after=True),
    "exec": Wrapper(flags=frozenset({"c", "l"}), valued=frozenset({"a"}), builtin=True),
}


def unwrapped(argv: Sequence[str], assigned: int | None = None) -> list[str]:
    """`argv` without what a person may put before memidx's command: the shell's `NAME=value`
    words (the first `assigned`, where its text says which are: shell_assignments), then
    WRAPPERS with their options (`env -i A=1 timeout -s KILL 5 nice -n 5 ...`). A word none
    of them would take stops it there: what follows is not run as memidx."""
    at, assignments, shell = 0, True, True  # the shell's NAME=value words come first
    while at < len(argv):
        word = argv[at]
        if assignments and _ASSIGNMENT.match(word) and (assigned is None or at < assigned):
            at += 1
            continue
        wrapper = WRAPPERS.get(PurePath(word).name)
        if wrapper is not None and wrapper.builtin and not shell:
            break  # `nice exec ...` runs a program named `exec`, whatever it does
        after = None if wrapper is None else _after_options(argv, at + 1, wrapper)
        if wrapper is None or after is None:
            break
        if wrapper.operand is not None:
            if after >= len(argv) or not wrapper.operand.fullmatch(argv[after]):
                break
            after += 1
        at, assignments, shell = after, wrapper.assignments, wrapper.shell_after
        assigned = None  # env's NAME=value words, if any: env reads them unquoted
    return list(argv[at:])


def shell_assignments(command: str) -> int:
    """How many words at the start of `command` the shell reads as `NAME=value`: not a
    quoted one (`'A=1'`, `"A"=1`) nor one with an escaped name (`A\\=1`), programs' names
    all; shlex, which drops the quotes, cannot tell."""
    count = 0
    for word in _RAW_WORD.finditer(command):
        if not _ASSIGNMENT.match(word.group()):
            break
        count += 1
    return count


def _after_options(argv: Sequence[str], at: int, wrapper: Wrapper) -> int | None:
    """Where `wrapper`'s options starting at `at` end; None at one it does not take."""
    while at < len(argv):
        word = argv[at]
        if word == "--":
            return at + 1
        if word == "-" and "" in wrapper.flags:  # env's `-`: `-i`
            at += 1
        elif not word.startswith("-") or word == "-":
            return at
        elif wrapper.legacy is not None and wrapper.legacy.fullmatch(word):
            at += 1
        elif word.startswith("--"):
            given, equals, _ = word[2:].partition("=")
            name = _long_name(given, wrapper)
            if name in wrapper.valued:
                at += 1 if equals else 2
            elif name in wrapper.optional or (name in wrapper.flags and not equals and name):
                at += 1
            else:
                return None
        else:
            taken = _short_options(word[1:], wrapper)
            if taken is None:
                return None
            at += taken
    return at


def _long_name(given: str, wrapper: Wrapper) -> str:
    """The long option `given` names: itself, or the one it is the start of (GNU's programs
    take `--kill=1` for `--kill-after=1`); "" when it names none, or several."""
    names = [n for n in (*wrapper.flags, *wrapper.valued, *wrapper.optional) if len(n) > 1]
    if given in names:
        return given
    started = [name for name in names if given and name.startswith(given)]
    return started[0] if len(started) == 1 else ""


def _short_options(letters: str, wrapper: Wrapper) -> int | None:
    """How many words a cluster of short options takes (`-iu NAME`: 2, `-c3`: 1); None when
    it holds one `wrapper` does not take."""
    for count, letter in enumerate(letters, 1):
        if letter in wrapper.valued:
            return 1 if count < len(letters) else 2
        if letter not in wrapper.flags:
            return None
    return 1


def memidx_part(command: str) -> tuple[int, str] | None:
    """Where memidx's own command begins in `command`, a hook of memidx's (after the person's
    wrapper: its offset in the text), and the program it runs (`<...>/memidx`, a Python with
    `-m memidx`, or a project's `/bin/sh`); None for any other command, or one whose wrapper
    cannot be told apart as text."""
    if hook_args(command) is None:
        return None
    argv = shlex.split(command)
    rest = unwrapped(argv, shell_assignments(command))
    head = argv[: len(argv) - len(rest)]
    for at in (0, *(at + 1 for at, char in enumerate(command) if char in _BLANKS)):
        try:
            if shlex.split(command[:at]) == head and shlex.split(command[at:]) == rest:
                return at, rest[0]
        except ValueError:  # inside quotes
            continue
    return None


_BLANKS = " \t\r\n"  # what shlex splits words at


def rewrapped(command: str, fresh: str) -> str:
    """`command`, memidx's hook in the person's wrapper, with memidx's part `fresh` in place of
    its own: the wrapper's text stays as they wrote it (quoting it again would change it:
    `'NAME=a b' memidx` runs a program of that name); `command` when it is no such hook."""
    found = memidx_part(command)
    return command if found is None else command[: found[0]] + fresh
