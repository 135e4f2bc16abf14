"""A person's git may be another version than memidx's git on PATH (another path, another
list of commands): memidx read a running git's command as its own git would, so a command the
person's git has and memidx's lacks was a mistyped one (waited for as any git, every remember
beside it pending), and one memidx's git has and the person's lacks a builtin of theirs (a
mistyped word their git corrects, not waited for). The person's git program is asked
(memidx/git/aliases.py's commands, memidx/git/invocation.py's program_of)."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from collections.abc import Generator
from pathlib import Path

import pytest

from memidx.git.branch_movers import branch_movers
from memidx.git.publish import committers
from tests.helpers import NotesRepo, clean_env

# a git of another version: its commands (--list-cmds=main), and any other command runs 30 s
FAKE_GIT = r"""
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--list-cmds=main")) {
            fputs(COMMANDS, stdout);
            return 0;
        }
    sleep(30);
    return 0;
}
"""


def another_git(folder: Path, listed: list[str]) -> Path:
    """A `git` in `folder` that lists `listed` as its commands and runs 30 s for any other."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to make another git with")
    folder.mkdir(parents=True)
    source, git = folder / "git.c", folder / "git"
    source.write_text(FAKE_GIT, encoding="utf-8")
    commands = '"' + "\\n".join(listed) + '\\n"'
    subprocess.run([compiler, f"-DCOMMANDS={commands}", "-o", str(git), str(source)], check=True)
    return git


@contextlib.contextmanager
def running(git: Path, argv: list[str], cwd: Path) -> Generator[str]:
    """`git <argv>` running in `cwd`, its pid yielded once its command line can be read (a
    moment after its exec it reads empty)."""
    process = subprocess.Popen([str(git), *argv], cwd=cwd, env=clean_env())
    line = Path(f"/proc/{process.pid}/cmdline")
    try:
        for _ in range(500):  # 5 s at most
            if line.read_bytes().strip(b"\0"):
                break
            time.sleep(0.01)
        yield str(process.pid)
    finally:
        process.kill()
        process.wait()


GUESSES = ["-c", "help.autocorrect=immediate"]


def test_a_command_of_the_person_s_newer_git_is_no_mistyped_one(
    repo: NotesRepo, tmp_path: Path
) -> None:
    """`git frobnicate` on a git that has it: not waited for as a corrected `git commit`."""
    git = another_git(tmp_path / "newer", ["commit", "status", "log", "frobnicate"])
    with running(git, [*GUESSES, "frobnicate"], repo.root) as pid:
        assert pid not in committers(repo.root)


def test_a_command_the_person_s_older_git_lacks_is_a_mistyped_one(
    repo: NotesRepo, tmp_path: Path
) -> None:
    """`git switch` on a git without it, correcting: it may run any command (a commit)."""
    git = another_git(tmp_path / "older", ["commit", "status", "log"])
    with running(git, [*GUESSES, "switch"], repo.root) as pid:
        assert pid in committers(repo.root)


def test_a_command_the_person_s_older_git_lacks_may_move_a_branch(
    repo: NotesRepo, tmp_path: Path
) -> None:
    """The same `git switch`, corrected, may be a `git branch -D`: a branch mover too."""
    git = another_git(tmp_path / "older", ["commit", "status", "log", "branch"])
    with running(git, [*GUESSES, "switch"], repo.root) as pid:
        assert pid in branch_movers(repo.root)
