"""What a move of HEAD (memidx.git.publish.move_head) said when git refused it or the command
run with it failed, and HEAD as it stands after (split from publish.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from memidx.errors import GitError

HOOK_REFUSED = "aborted by hook"  # git's words when a reference-transaction hook says no


def head_at(root: Path) -> str:
    argv = ["git", "rev-parse", "-q", "--verify", "HEAD"]
    found = subprocess.run(argv, cwd=root, capture_output=True, check=False)
    return found.stdout.decode(errors="replace").strip()


class HookRefused(GitError):
    """The clone's reference-transaction hook refused to move HEAD."""

    def __init__(self, errors: str) -> None:
        said = [line for line in errors.splitlines() if line.strip() and HOOK_REFUSED not in line]
        super().__init__(
            "the clone's reference-transaction hook refused to move HEAD"
            + (f" (it said: {said[0].strip()})" if said else ""),
            "fix that hook (git rev-parse --git-path hooks/reference-transaction), then try again",
        )


class Undone(GitError):
    """The git command run with the move failed (move_head's `back`); `back`: HEAD went back
    (else another git moved it meanwhile)."""

    def __init__(self, errors: str, back: bool) -> None:
        said = [line.strip() for line in errors.splitlines() if line.strip()]
        self.back = back
        super().__init__(said[0] if said else "git failed after the move", "try again")


def close(git: subprocess.Popen[str]) -> str:
    """End git's input (an uncommitted transaction ends with it) and reap git; what it wrote
    to its error stream."""
    try:
        return git.communicate()[1] or ""
    except BrokenPipeError:  # it had ended already
        git.wait()
        return git.stderr.read() if git.stderr is not None else ""
