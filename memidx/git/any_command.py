"""Whether a git the look for committing gits found may still run any git command (a mistyped
one git corrects, an alias running a shell), and whether a git writes into its own pager."""

from __future__ import annotations

import contextlib
import os

from memidx.git.invocation import ANY_GIT, GUESSED, SHELL_ALIAS, command_at
from memidx.git.newcomers import read_proc, young


def may_run_any(command: str, pid: str) -> bool:
    """Whether the git `pid` whose command (expanded) is `command` may still run any git
    command: a mistyped one git corrects runs it itself, for as long as it runs, and so may
    an alias not read (UNREAD: `git ci` may commit for as long as it runs); an alias running
    a shell until its shell started one (young: that git is seen on its own). Not a mistyped
    one whose guess runs in its pager (`git lgo`, run as `git log`): git pages only commands
    that read (waited for, it left every remember pending 10 s), unless told: PAGED_GUESS."""
    if command == GUESSED:
        return not in_its_pager(pid)
    return command in ANY_GIT and (command != SHELL_ALIAS or young(pid))


def in_its_pager(pid: str) -> bool:
    """Whether git `pid` writes into its own pager (`less`, `sh -c "$PAGER"`): its stdout a
    pipe that a child of its reads, or, its output all written, its stdout and stderr closed
    while it waits for that child to end (git closes both only there: its pager sees EOF);
    not with `-p`/`--paginate`, which pages any command (`git -p comit` commits in its
    pager). False when not known (another user's, ended)."""
    fds = f"/proc/{pid}/fd"
    try:
        line = read_proc(f"/proc/{pid}/cmdline").split(b"\0")[1:]
        open_fds = os.listdir(fds)  # noqa: PTH208 (raw: under HEAD's lock)
        children = read_proc(f"/proc/{pid}/task/{pid}/children").split()
        out = os.readlink(f"{fds}/1") if "1" in open_fds else ""  # noqa: PTH115
    except OSError:
        return False
    at = command_at([word.decode("utf-8", "replace") for word in line])
    if not children or {b"-p", b"--paginate"} & set(line[:at]):
        return False
    if not out:
        return "2" not in open_fds  # both closed: waiting for its pager at its end
    for child in children if out.startswith("pipe:") else ():
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/{child.decode()}/fd/0") == out:  # noqa: PTH115
                return True
    return False
