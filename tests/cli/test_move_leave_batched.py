"""The move's shell doing the follow itself once memidx was killed after HEAD moved (memidx.git.
move_script): `leave` moved each file the move deletes aside with an `mv` of its own (50 files
held git's index lock ~730 ms, against ~100 ms when none was left; median of 5, load ~22).
One python (memidx's, the script's $6) now moves them all aside, under the same names
(`.<name>.memidx-<pid>`), judged as before: a file still the bytes judged goes, an edit stays
at its path. Where that python cannot run, an `mv` per file, as before."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memidx.children import SHELL
from memidx.git.move_script import move_lines
from tests.helpers import GIT_IDENTITY, clean_env
from tests.move_shell import killed_move_shell

pytestmark = pytest.mark.skipif(SHELL is None, reason="the move's shell")
PATHS = [f"notes/{folder}/n{n}.md" for folder in ("a", "b") for n in range(3)]
EDIT = b"The person's line, saved before the shell judged the note.\n"
# an `mv` first on PATH that logs each call, then runs the real one
LOGGING_MV = """#!/bin/sh
printf '%s\\n' "$*" >>"$MV_LOG"
exec /bin/mv "$@"
"""


def _git(root: Path, *args: str, index: Path | None = None) -> str:
    env = clean_env(**({"GIT_INDEX_FILE": str(index)} if index else {}))
    done = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, check=True)
    return done.stdout.decode().strip()


def _forgetting(root: Path) -> tuple[str, str]:
    """A repository of PATHS and a commit that deletes them: (old, new)."""
    _git(root, "init", "-q", "-b", "main")
    for path in PATHS:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(f"# {path}\n\nWhat {path} says.\n")
    _git(root, "add", "-A")
    _git(root, *GIT_IDENTITY, "commit", "-q", "-m", "notes")
    old, temp = _git(root, "rev-parse", "HEAD"), root / ".git" / "test-index"
    _git(root, "read-tree", old, index=temp)
    _git(root, "rm", "-q", "--cached", *PATHS, index=temp)
    tree = _git(root, "write-tree", index=temp)
    return old, _git(root, *GIT_IDENTITY, "commit-tree", tree, "-p", old, "-m", "forget")


def _shell_alone(root: Path, python: str, log: Path, edited: str = "") -> None:
    """The move's shell, its memidx gone once HEAD moved (its input closed, the lock its own),
    run to its end with LOGGING_MV first on PATH; `edited` saved with EDIT after the judge."""
    old, new = _forgetting(root)
    gone: dict[str, bytes | None] = {p: (root / p).read_bytes() for p in PATHS}
    if edited:
        with (root / edited).open("ab") as file:
            file.write(EDIT)
    (log.parent / "bin").mkdir()
    (log.parent / "bin" / "mv").write_text(LOGGING_MV)
    (log.parent / "bin" / "mv").chmod(0o755)
    then = ["reset", "-q", new, "--", *(f":(literal){p}" for p in PATHS)]
    env = clean_env(PATH=f"{log.parent / 'bin'}:{os.environ['PATH']}", MV_LOG=str(log))
    killed_move_shell(root, (old, new), move_lines(root, gone, []), python, then, env=env)


def test_the_killed_move_s_shell_moves_the_files_aside_in_one_process(tmp_path: Path) -> None:
    root, log = tmp_path / "m", tmp_path / "mv.log"
    root.mkdir()
    log.write_text("")

    _shell_alone(root, sys.executable, log, edited=PATHS[4])

    moved = [line for line in log.read_text().splitlines() if ".memidx-" in line]
    assert moved == []  # was: an mv per file
    assert _git(root, "status", "--porcelain", "-uall") == f"?? {PATHS[4]}"
    assert (root / PATHS[4]).read_bytes().endswith(EDIT)  # the edit stays at its path
    assert not (root / "notes" / "a").exists()
    assert sorted(p.name for p in (root / "notes" / "b").iterdir()) == ["n1.md"]


def test_without_that_python_an_mv_per_file_does_it(tmp_path: Path) -> None:
    root, log = tmp_path / "m", tmp_path / "mv.log"
    root.mkdir()
    log.write_text("")

    _shell_alone(root, str(tmp_path / "no-python"), log, edited=PATHS[4])

    moved = [line for line in log.read_text().splitlines() if ".memidx-" in line]
    assert len(moved) == len(PATHS)
    assert _git(root, "status", "--porcelain", "-uall") == f"?? {PATHS[4]}"
    assert (root / PATHS[4]).read_bytes().endswith(EDIT)
    assert not (root / "notes" / "a").exists()
    assert sorted(p.name for p in (root / "notes" / "b").iterdir()) == ["n1.md"]
