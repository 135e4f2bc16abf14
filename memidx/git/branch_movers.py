"""The `git branch` commands of a clone that may move or delete a branch (`-d`, `-D`, `-m`,
`-M`, `-c`, `-C`, `-f` and their long names), found in /proc.

A side commit waited for every `git branch` of the clone: a listing held open by its pager
(`git branch` in a terminal), or a shell prompt's `git branch --show-current`, made each one
wait its whole deadline (10 s), the note committed late or left pending for nothing.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from memidx.git.invocation import ANY_GIT, expanded, program_of

SHORT = frozenset("dDmMcCf")  # -d/-D delete, -m/-M move, -c/-C copy over, -f force
LONG = ("--delete", "--move", "--copy", "--force")
POLL = 0.05  # seconds between looks at /proc


def branch_movers(root: Path, *, also: Sequence[Path] = ()) -> dict[str, str]:
    """The `git branch` processes of the clone (publish.committers) that may move or delete a
    branch: pid -> `branch <start time>`. One that ended meanwhile is left out."""
    from memidx.git.publish import committers

    found = committers(root, frozenset({"branch"}), also=also)
    top = root.resolve()
    return {  # any git as committers saw it (a command line read empty): read again, it may
        pid: seen  # read empty still, or another command than the one it was seen running
        for pid, seen in found.items()
        if seen.split(" ", 1)[0] in ANY_GIT or may_move(_argv(pid), top, program_of(pid))
    }


def settled(trees: Sequence[Path], until: float) -> bool:
    """Whether no `git branch` that may move or delete a branch runs in the work trees `trees`
    of a clone, waited for until `until` (monotonic): False when one still runs then."""
    for _ in range(100_000):  # bounded by `until`
        if not trees or not branch_movers(trees[0], also=trees[1:]):
            return True
        if time.monotonic() >= until:
            return False
        time.sleep(POLL)
    return False


def _argv(pid: str) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []  # it ended
    return [word.decode("utf-8", "replace") for word in raw.split(b"\0")[1:] if word]


def may_move(argv: Sequence[str], root: Path | None = None, program: str = "") -> bool:
    """Whether a `git ... branch ...` command line may move, copy over or delete a branch (an
    option git would refuse as ambiguous counts: waiting for it costs nothing); `git br -d x`
    with the alias br=branch of the clone at `root` does, as does an alias running a shell
    (`program`: the git that runs it, whose own commands are read)."""
    command = expanded(argv, root, program=program)
    return any(word in ANY_GIT for word in command[:1]) or any(
        _moving(word) for word in command[1:]
    )


def _moving(word: str) -> bool:
    if word == "--":
        return False
    if word.startswith("--"):
        name = word.split("=", 1)[0]
        return len(name) > 2 and any(full.startswith(name) for full in LONG)
    return word.startswith("-") and bool(SHORT.intersection(word[1:]))
