"""What `memidx status` says holds the clone (memidx.git.underway.busy_with, the pending
line's reason): a person's `git pull` in its fetch was said as "a git commit is under way".
It names the git that runs now."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.git.underway import busy_with
from tests.cli.test_forget import clones
from tests.cli.test_share_persons_long_fetch import held


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_pull_in_its_fetch_is_said_as_a_pull(tmp_path: Path) -> None:
    one, two = clones(tmp_path)
    one.note("theirs.md", "Theirs", "a note the first clone pushed about docker volumes")
    one.commit("one's note")
    one.git("push", "-q", "origin", "main")

    with held(tmp_path, two.root, ["pull", "-q", "--no-rebase", "--no-edit"]):
        said = busy_with(two.root)

    assert said == "a git pull is under way"  # was: a git commit is under way
