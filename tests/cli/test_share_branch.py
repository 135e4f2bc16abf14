"""`memidx share` merges into the branch it began on, never into whatever HEAD names: a `git
switch` (or a detached HEAD) after share looked at HEAD used to have share's merge read the
other branch. With that branch holding the upstream already, share said "merged", pushed the
branch it began on, unmerged (refused by the remote), and tried again as if another clone had
pushed first."""

from __future__ import annotations

from pathlib import Path
from subprocess import CompletedProcess

import pytest

from memidx.config import Config, load_config
from memidx.errors import GitBusy
from memidx.memory import share_move
from memidx.memory.share import share
from tests.cli.test_forget import clones
from tests.helpers import NotesRepo


def behind_with_other(tmp_path: Path) -> tuple[NotesRepo, NotesRepo]:
    """Clone two on main, behind the remote; its branch `other` follows origin/main too and
    holds it already (and a commit of its own)."""
    one, two = clones(tmp_path)
    one.note("theirs.md", "Theirs", "a note the other clone pushed")
    one.commit("one's note")
    one.git("push", "-q", "origin", "main")
    two.git("fetch", "-q")
    two.git("branch", "-q", "--track", "other", "origin/main")
    two.git("switch", "-q", "other")
    two.note("other-only.md", "Other", "a note only the other branch holds")
    two.commit("on other")
    two.git("switch", "-q", "main")
    return two, NotesRepo(tmp_path / "remote.git", init=False)


@pytest.mark.parametrize("to", [["other"], ["--detach", "other"]], ids=["branch", "detached"])
def test_a_switch_after_the_look_at_head_is_refused_not_said_merged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, to: list[str]
) -> None:
    two, remote = behind_with_other(tmp_path)
    before = {ref: two.git("rev-parse", ref) for ref in ("main", "other")}
    remote_before = remote.git("rev-parse", "main")
    run_git = share_move.run_git
    said: list[str] = []

    def switching(config: Config, *args: str) -> CompletedProcess[str]:
        if args[0] == "update-index" and not said:  # the merge's first git: HEAD was looked at
            said.append(two.git("switch", "-q", *to))
        return run_git(config, *args)

    monkeypatch.setattr(share_move, "run_git", switching)

    with pytest.raises(GitBusy) as raised:
        share(load_config(two.root, env={}), sleep=lambda _: None, say=said.append)

    assert raised.value.message.startswith("HEAD is ")
    assert "not on main" in raised.value.message
    assert not any("the remote moved" in line for line in said)  # no push of unmerged main
    assert {ref: two.git("rev-parse", ref) for ref in before} == before
    assert remote.git("rev-parse", "main") == remote_before
