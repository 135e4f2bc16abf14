"""A `git switch` while `memidx share` runs, to another branch following the same upstream:
share merges and pushes the branch it began on, by name, or refuses; it never pushes the
other branch under the first one's name. The switch is made by a stand-in `git` earlier on
PATH, once, just before the git command it is set for."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import GitBusy
from memidx.memory.share import share
from tests.cli.test_forget import clones
from tests.helpers import NotesRepo

STAND_IN = """#!/bin/sh
if [ "$1" = {command} ] && [ ! -e {marker} ]; then
    : > {marker}
    {git} switch -q other
fi
exec {git} "$@"
"""


def two_branches(tmp_path: Path) -> tuple[NotesRepo, NotesRepo]:
    """Clone two on main with a commit of its own, and `other` (its own commit too)
    following origin/main as well; the remote moved on meanwhile."""
    one, two = clones(tmp_path)
    two.git("branch", "-q", "--track", "other", "origin/main")
    two.git("switch", "-q", "other")
    two.note("other-only.md", "Other", "a note only the other branch holds")
    two.commit("on other")
    two.git("switch", "-q", "main")
    two.note("mine.md", "Mine", "a note of main's")
    two.commit("on main")
    one.note("theirs.md", "Theirs", "a note the other clone pushed")
    one.commit("one's note")
    one.git("push", "-q", "origin", "main")
    return two, NotesRepo(tmp_path / "remote.git", init=False)


def switch_at(tmp_path: Path, command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Put a stand-in git on PATH that switches to `other` before `git <command>`."""
    git = shutil.which("git")
    assert git is not None
    folder = tmp_path / "stand-in"
    folder.mkdir()
    script = folder / "git"
    script.write_text(STAND_IN.format(command=command, marker=folder / "switched", git=git))
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(folder), prepend=os.pathsep)


def test_a_switch_at_the_merge_stops_share_before_it_pushes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    two, remote = two_branches(tmp_path)
    before = remote.git("rev-parse", "main")
    switch_at(tmp_path, "merge", monkeypatch)

    with pytest.raises(GitBusy) as raised:
        share(load_config(two.root, env={}), sleep=lambda _: None)

    assert raised.value.message.startswith("HEAD is on other now, not on main")
    assert "nothing was pushed" in raised.value.message
    assert "git switch main" in raised.value.hint
    assert remote.git("rev-parse", "main") == before  # other's note never reached main


def test_a_switch_at_the_push_still_pushes_the_branch_share_merged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    two, remote = two_branches(tmp_path)
    switch_at(tmp_path, "push", monkeypatch)

    assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed

    assert remote.git("rev-parse", "main") == two.git("rev-parse", "main")
    assert "notes/mine.md" in remote.git("ls-tree", "-r", "--name-only", "main")
    assert "notes/other-only.md" not in remote.git("ls-tree", "-r", "--name-only", "main")
