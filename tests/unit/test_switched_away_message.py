"""What memidx says when a `git switch` took HEAD off the branch a commit was meant for
(memidx.git.switched): seen at the move, HEAD may be back on that branch by the time the
message is written (a person's `git switch side; git switch main` loop). It said "HEAD is on
main now, not on main as when this began", and "to do it on main, try again; to do it on
main, git switch main, then try again"."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memidx.git.switched import switched_away

UNDONE = "notes/x.md was not committed"


def _git_dir(tmp_path: Path, head: str) -> Path:
    subprocess.run(["git", "init", "-q", "-b", "main", str(tmp_path)], check=True)
    git_dir = tmp_path / ".git"
    (git_dir / "HEAD").write_text(f"ref: {head}\n" if head.startswith("refs/") else f"{head}\n")
    return git_dir


@pytest.mark.parametrize(
    ("now", "meant", "message", "hint"),
    [
        (
            "refs/heads/main",
            "refs/heads/main",
            "HEAD left main meanwhile, and is on main again now (a git switch or checkout, and "
            f"back); {UNDONE}",
            "try again",
        ),
        (
            "refs/heads/side",
            "refs/heads/main",
            "HEAD is on side now, not on main as when this began (a git switch or checkout "
            f"meanwhile); {UNDONE}",
            "to do it on side, try again; to do it on main, git switch main, then try again",
        ),
        (
            "0123456789abcdef0123456789abcdef01234567",
            "refs/heads/main",
            "HEAD is detached now, not on main as when this began (a git switch or checkout "
            f"meanwhile); {UNDONE}",
            "to do it on main, git switch main, then try again",
        ),
    ],
)
def test_the_switch_is_said_as_it_stands_when_said(
    tmp_path: Path, now: str, meant: str, message: str, hint: str
) -> None:
    said = switched_away(_git_dir(tmp_path, now), meant, UNDONE)
    assert (said.message, said.hint) == (message, hint)
