"""`memidx status` asks git for the clone's git folder once: the look for a lock a killed git
left and the look for memidx's move of HEAD under way each ran `git rev-parse
--absolute-git-dir` (a git process, ~2-5 ms, at every status)."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from tests.helpers import NotesRepo


def logging_git(tmp_path: Path, log: Path) -> str:
    """A PATH whose `git` writes its arguments to `log`, one run a line, then runs the real one."""
    real = shutil.which("git")
    assert real is not None
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "git"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >>"{log}"\nexec {real} "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return f"{folder}{os.pathsep}{os.environ['PATH']}"


def test_status_asks_git_for_its_folder_once(repo: NotesRepo, tmp_path: Path) -> None:
    repo.note("wsl.md", "WSL memory", "vmmem grows until .wslconfig caps it")
    repo.commit("notes")
    assert repo.memidx("ingest").code == 0
    log = tmp_path / "git.log"

    run = repo.memidx_process("status", "--json", PATH=logging_git(tmp_path, log))

    assert run.code == 0, run.err
    assert run.json()["healthy"] and run.json()["git_lock"] is None
    runs = log.read_text().splitlines()
    assert [line for line in runs if "--absolute-git-dir" in line] == [
        f"-C {repo.root} rev-parse --absolute-git-dir"
    ], runs
