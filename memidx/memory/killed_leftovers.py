"""What a memidx killed while it changed git's index left (the index's lock, a note's file
moved aside), put right and said (memidx.git.killed_edit), before a command that would be held
up by it or would name it: the CLI's status, sync and remember, and the MCP server's."""

from __future__ import annotations

from collections.abc import Callable

from memidx.config import Config


def settle_killed(config: Config, say: Callable[[str], None], *, asides: bool = True) -> None:
    """Put it right, each line said through `say`; `asides`: look for files moved aside even
    when no lock was left (a walk of the notes folder)."""
    if not config.in_git:
        return
    from memidx.git.killed_edit import settle_killed_edit

    for line in settle_killed_edit(config.root, config.notes_path, asides=asides):
        say(line)
