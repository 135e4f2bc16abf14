"""What the pending-note tests (tests/cli/test_pending_*.py and their kin) wait on: a person's
`git rebase -i` held open for a few seconds at an `exec` step, to act while it runs, and the
finishers memidx started for a clone."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Generator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.cli.test_late_merge import wait_for
from tests.helpers import NotesRepo, clean_env


@dataclass
class Rebase:
    """How the person's rebase ended: set once the block is left."""

    returncode: int | None = None
    err: bytes = b""


@contextmanager
def rebase_held_open(repo: NotesRepo, folder: Path, step: str = "pick") -> Generator[Rebase]:
    """Run `git rebase -i HEAD~1` whose todo sleeps 4 s in an `exec` before `step` (pick, edit)
    of HEAD; the block runs once the exec has begun, and the rebase's end is waited for (60 s at
    most) however the block is left."""
    picked = folder / "picked"
    todo = folder / "todo"
    head = repo.git("rev-parse", "HEAD").strip()
    todo.write_text(f"exec touch {picked}; sleep 4\n{step} {head}\n")
    person = subprocess.Popen(
        ["git", "rebase", "-q", "-i", "HEAD~1"],
        cwd=repo.root,
        env=clean_env(GIT_SEQUENCE_EDITOR=f"cp {todo}"),
        stderr=subprocess.PIPE,
    )
    ended = Rebase()
    try:
        wait_for("the rebase to run", picked.exists)
        yield ended
    finally:
        _, ended.err = person.communicate(timeout=60)
        ended.returncode = person.returncode


def finishers(root: Path) -> list[int]:
    """The pending-note finishers running for this clone (Linux /proc)."""
    found: list[int] = []
    for pid_dir in Path("/proc").glob("[0-9]*"):
        try:
            argv = (pid_dir / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"memidx.memory.pending_finisher" in argv and str(root).encode() in argv:
            found.append(int(pid_dir.name))
    return found


def until(done: Callable[[], bool], seconds: float) -> bool:
    """Whether `done()` came true within `seconds` (looked at every 0.1 s)."""
    for _ in range(int(seconds * 10)):
        if done():
            return True
        time.sleep(0.1)
    return bool(done())
