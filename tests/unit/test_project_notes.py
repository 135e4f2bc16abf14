"""The project's own notes/: what ships is the notes a person wrote, never a turn log."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.helpers import clean_env

ROOT = Path(__file__).parents[2]


def test_the_project_ships_no_turn_log_segment() -> None:
    # a file-turn tried by hand in a work tree of this repository once committed its segment
    # (notes/haystack/<machine>/<day>.krd: someone's turns) into the project with a fix
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "--", "notes/haystack"],
        capture_output=True,
        text=True,
        check=True,
        env=clean_env(),  # a GIT_DIR inherited (tests run from a git hook) named another repo
    ).stdout.split()
    assert sorted(listed) == ["notes/haystack/.gitattributes", "notes/haystack/.gitignore"]
