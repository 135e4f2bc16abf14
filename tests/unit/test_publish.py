"""Which git command a git process runs, from its command line (memidx waits for the ones that
move HEAD from the value they read when they started)."""

from __future__ import annotations

import pytest

from memidx.git.newcomers import COMMITTING, subcommand


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        ([b"git", b"commit", b"-m", b"x", b""], "commit"),
        ([b"git", b"-c", b"user.name=a", b"-C", b"/repo", b"commit", b"-q"], "commit"),
        ([b"/usr/bin/git", b"--no-pager", b"merge", b"origin/main"], "merge"),
        ([b"git", b"--git-dir", b"/r/.git", b"status"], "status"),
        ([b"git", b"-c", b"commit.gpgsign=false", b"log"], "log"),
        ([b"git"], ""),
    ],
)
def test_the_git_command_of_a_command_line(argv: list[bytes], command: str) -> None:
    assert subcommand(argv) == command


@pytest.mark.parametrize("command", ["status", "log", "diff", "fetch", "update-ref"])
def test_commands_that_do_not_commit_are_not_waited_for(command: str) -> None:
    assert command not in COMMITTING
