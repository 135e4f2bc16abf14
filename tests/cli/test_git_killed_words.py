"""A git killed after it warned is told by its kill, its warning after (it was told by the
warning alone: "the repository cannot be written (warning: ... Permission denied)", a cause
that was none); a git wrapper that runs git without `exec` exits 128 + the signal's number,
which reads as the signal, not as `exited with status 137`."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from tests.cli.test_git_gone import COMMANDS, one_error, shared, untouched
from tests.helpers import NotesRepo

WARNING = "warning: unable to access '/home/me/.config/git/attributes': Permission denied"
# what the wrapper does when the command is among git's arguments, in place of `exec git`
DOES = {
    "warns, then is killed": f'echo "{WARNING}" >&2; kill -KILL "$$"',
    # a git run as the wrapper's child, not exec'd, and killed (a child that kills itself
    # stands for it: a real git may end before a kill comes): the shell says `Killed`, exits 137
    "runs git unexec'd, killed": 'sh -c \'kill -KILL "$$"\'; exit "$?"',
}


def wrapped(tmp_path: Path, at: str, does: str) -> str:
    """A PATH whose `git` runs the real one, but does `does` when `at` is among its words."""
    real = shutil.which("git")
    assert real is not None
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    script = folder / "git"
    script.write_text(
        f"#!/bin/sh\nREAL={real}\n"
        f'for word in "$@"; do [ "$word" = {at} ] && {{ {DOES[does]}; }}; done\n'
        'exec "$REAL" "$@"\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return f"{folder}{os.pathsep}{os.environ['PATH']}"


AT = {"remember": "commit-tree", "forget": "commit-tree", "share": "push"}  # the git killed
KILLED = "was killed by SIGKILL"


@pytest.mark.parametrize(
    ("command", "does", "said"),
    [
        (
            "remember",
            "warns, then is killed",
            f"notes/descaling.md was not committed: git commit-tree {KILLED}, "
            f"after it printed: {WARNING} (nothing was committed; try again)",
        ),
        (
            "forget",
            "runs git unexec'd, killed",
            f"notes/wsl.md was not forgotten: git commit-tree {KILLED} "
            "(nothing was committed; try again)",
        ),
        (
            "share",
            "warns, then is killed",
            f"git push failed: git {KILLED}, after it printed: {WARNING}",
        ),
        ("share", "runs git unexec'd, killed", f"git push failed: git {KILLED}"),
    ],
)
def test_a_killed_git_is_told_by_its_kill_then_its_last_words(
    repo: NotesRepo, tmp_path: Path, command: str, does: str, said: str
) -> None:
    shared(repo, tmp_path)
    head = repo.git("rev-parse", "HEAD").strip()
    args, stdin = COMMANDS[command]

    run = repo.memidx_process(*args, stdin=stdin, PATH=wrapped(tmp_path, AT[command], does))

    if command == "share":  # git's own lines go first (share echoes them); its turn's commit
        assert run.code == 1, run  # stays for the next share
        line = run.err.strip().splitlines()[-1]
    else:
        line = one_error(run)
        untouched(repo, head)
    assert line.startswith(f"memidx: error: {said}"), line


NOT_RUN = {
    "none": "cannot run git: no git on PATH (install git and put it on PATH)",
    "not executable": "cannot run git: the git on PATH may not be run (Permission denied) (make "
    "it executable (chmod +x), or put a git that runs first on PATH)",
}


@pytest.mark.parametrize("git", list(NOT_RUN))
@pytest.mark.parametrize(
    "args",
    [
        ("hooks", "status"),  # its own git run: "git: No such file or directory", and "git:
        # Permission denied (check the permissions and the mount of its folder, ...)"
        ("remember", "--title", "Descaling"),  # "cannot run git: Permission denied (install git
        # and put it on PATH)" of a git there
        ("show", "notes/wsl.md"),  # "a note file git does not track yet": a committed note
    ],
)
def test_a_git_that_cannot_start_is_said_with_what_to_do(
    repo: NotesRepo, tmp_path: Path, git: str, args: tuple[str, ...]
) -> None:
    shared(repo, tmp_path)
    head = repo.git("rev-parse", "HEAD").strip()
    folder = tmp_path / "bin"
    folder.mkdir()
    if git == "not executable":
        (folder / "git").write_text("#!/bin/sh\nexit 0\n")  # no x bit: no git that may run

    run = repo.memidx_process(*args, stdin="The kettle needs descaling.\n", PATH=str(folder))

    assert one_error(run) == f"memidx: error: {NOT_RUN[git]}"
    untouched(repo, head)
