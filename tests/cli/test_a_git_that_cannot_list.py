"""memidx asks a running git's own program for its commands (`<program> --list-cmds=main`):
a program that never answers (any program may be named `git`, or take `git` for its comm) had
every look at /proc wait for it, a `git comit` beside it taking the look 30 s; it is given
2 s (memidx/git/aliases.py's _listed), then memidx's own git's commands are used."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from memidx.git.publish import committers
from tests.helpers import NotesRepo, clean_env

HANGS = "#include <unistd.h>\nint main(void) { sleep(30); return 0; }\n"


def a_git_that_hangs(folder: Path) -> Path:
    """A `git` in `folder` that runs 30 s, whatever it is asked."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to make such a git with")
    folder.mkdir(parents=True)
    (folder / "git.c").write_text(HANGS, encoding="utf-8")
    subprocess.run([compiler, "-o", str(folder / "git"), str(folder / "git.c")], check=True)
    return folder / "git"


def test_a_git_program_that_never_lists_its_commands_holds_no_look(
    repo: NotesRepo, tmp_path: Path
) -> None:
    git = a_git_that_hangs(tmp_path / "hangs")
    argv = [str(git), "-c", "help.autocorrect=immediate", "comit"]
    process = subprocess.Popen(argv, cwd=repo.root, env=clean_env())
    try:
        for _ in range(500):  # its command line read, once set
            if Path(f"/proc/{process.pid}/cmdline").read_bytes().strip(b"\0"):
                break
            time.sleep(0.01)
        start = time.monotonic()
        found = committers(repo.root)
        took = time.monotonic() - start
    finally:
        process.kill()
        process.wait()

    assert took < 10, f"a look took {took:.1f} s"
    assert str(process.pid) in found  # `comit`, no command of memidx's git: any git
