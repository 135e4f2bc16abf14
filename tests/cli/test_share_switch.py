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
if [ "$1" = {command} -o "$1" = {also} ] && [ ! -e {marker} ]; then
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


def switch_at(
    tmp_path: Path, command: str, monkeypatch: pytest.MonkeyPatch, also: str = "-"
) -> None:
    """Put a stand-in git on PATH that switches to `other` before `git <command>` (or `git
    <also>`, whichever runs first)."""
    git = shutil.which("git")
    assert git is not None
    folder = tmp_path / "stand-in"
    folder.mkdir()
    script = folder / "git"
    text = STAND_IN.format(command=command, also=also, marker=folder / "switched", git=git)
    script.write_text(text)
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(folder), prepend=os.pathsep)


@pytest.mark.parametrize("command", ["merge-tree", "commit-tree", "update-ref"])
def test_a_switch_at_the_merge_leaves_both_branches_as_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """A switch at the look, at the merge commit or at the move of the branch: share's merge
    used to land on the branch HEAD named when `git merge` read it (refused afterwards,
    nothing pushed, but not undone: other held main's merge). Now the branch moves only while
    HEAD names it, under HEAD's lock: nothing merged on either branch, other's work tree as
    the switch left it, and the line says so."""
    two, remote = two_branches(tmp_path)
    before = {ref: two.git("rev-parse", ref) for ref in ("main", "other")}
    remote_before = remote.git("rev-parse", "main")
    switch_at(tmp_path, command, monkeypatch, also="merge")

    with pytest.raises(GitBusy) as raised:
        share(load_config(two.root, env={}), sleep=lambda _: None)

    assert raised.value.message.startswith("HEAD is on other now, not on main")
    assert "nothing was merged, pulled or pushed" in raised.value.message
    assert "git switch main" in raised.value.hint
    assert {ref: two.git("rev-parse", ref) for ref in before} == before
    assert two.git("status", "--porcelain=v1", "-uall", "--", "notes") == ""
    assert remote.git("rev-parse", "main") == remote_before  # other's note never reached main


def test_a_switch_at_the_push_still_pushes_the_branch_share_merged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    two, remote = two_branches(tmp_path)
    switch_at(tmp_path, "push", monkeypatch)

    assert share(load_config(two.root, env={}), sleep=lambda _: None).pushed

    assert remote.git("rev-parse", "main") == two.git("rev-parse", "main")
    assert "notes/mine.md" in remote.git("ls-tree", "-r", "--name-only", "main")
    assert "notes/other-only.md" not in remote.git("ls-tree", "-r", "--name-only", "main")
