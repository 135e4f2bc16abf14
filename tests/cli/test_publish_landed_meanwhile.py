"""memidx.git.commit.publish, whose commit changes nothing on HEAD (a note remembered as it is
committed, one forgotten already gone), while another commit lands on the same branch between
its look at HEAD and its check that HEAD is still there (a person's, another agent's memidx): it
was refused as "HEAD left main meanwhile, and is on main again now (a git switch or checkout,
and back)", exit 1 for a `remember` that had nothing to do, though no switch was made. It is
built again on the commit that landed, as when one lands before a move."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from memidx.git.commit import publish


def _git(root: Path, *args: str) -> str:
    argv = ["git", "-C", str(root), "-c", "user.name=A", "-c", "user.email=a@example.com", *args]
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout.strip()


def test_a_commit_landing_on_the_branch_as_nothing_changed_is_no_switch(tmp_path: Path) -> None:
    root = tmp_path / "clone"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / "a.md").write_text("# A\n")
    _git(root, "add", "a.md")
    _git(root, "commit", "-q", "-m", "a")
    built: list[str | None] = []

    def build(head: str | None) -> str:  # nothing to change; a person commits meanwhile once
        built.append(head)
        if len(built) == 1:
            _git(root, "commit", "-q", "--allow-empty", "-m", "the person's")
        return str(head)

    def head_of() -> str | None:
        return _git(root, "rev-parse", "HEAD")

    commit = publish(
        root, root / ".git", build, head_of, "memidx: a", undone="a.md was not committed",
        deadline=time.monotonic() + 10, branch="refs/heads/main",
    )  # fmt: skip

    assert commit == _git(root, "rev-parse", "HEAD")  # the person's: a.md as it is there
    assert built[1] == commit  # built again on it, nothing refused
