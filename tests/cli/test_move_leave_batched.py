"""The move's shell doing the follow itself once memidx was killed after HEAD moved (memidx.git.
move_script): `leave` moved each file the move deletes aside with an `mv` of its own (50 files
held git's index lock ~730 ms, against ~100 ms when none was left; median of 5, load ~22).
One python (memidx's, the script's $6) now moves them all aside, under the same names
(`.<name>.memidx-<pid>`), judged as before: a file still the bytes judged goes, an edit stays
at its path. Where that python cannot run, an `mv` per file, as before."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from memidx.children import SHELL
from memidx.git.move_script import move_lines
from tests.helpers import clean_env
from tests.move_shell import killed_move_shell
from tests.plumbing import forgetting, git

pytestmark = pytest.mark.skipif(SHELL is None, reason="the move's shell")
PATHS = [f"notes/{folder}/n{n}.md" for folder in ("a", "b") for n in range(3)]
EDIT = b"The person's line, saved before the shell judged the note.\n"
# an `mv` first on PATH that logs each call, then runs the real one
LOGGING_MV = """#!/bin/sh
printf '%s\\n' "$*" >>"$MV_LOG"
exec /bin/mv "$@"
"""


def _shell_alone(root: Path, python: str, log: Path, edited: str = "") -> None:
    """The move's shell, its memidx gone once HEAD moved (its input closed, the lock its own),
    run to its end with LOGGING_MV first on PATH; `edited` saved with EDIT after the judge."""
    old, new = forgetting(root, PATHS)
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
    assert git(root, "status", "--porcelain", "-uall") == f"?? {PATHS[4]}"
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
    assert git(root, "status", "--porcelain", "-uall") == f"?? {PATHS[4]}"
    assert (root / PATHS[4]).read_bytes().endswith(EDIT)
    assert not (root / "notes" / "a").exists()
    assert sorted(p.name for p in (root / "notes" / "b").iterdir()) == ["n1.md"]
