"""The move's shell (memidx.git.move_script) run alone, as a memidx killed once HEAD moved
leaves it: the input memidx drives update-ref with, HEAD moved, git's index lock taken with
the shell's token, then the input closed; the shell does the follow itself and ends."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from memidx.children import SHELL
from memidx.git.move_script import THEN, index_token
from tests.helpers import clean_env

# lines of a memidx's script (-c) that has imported memidx.git.index_swap: its swap (the fast
# path's move) notes that it ran, in `swap.ran`
SWAP_NOTED = """
swapped = index_swap.swap
def swap(*args, **kwargs):
    swap.ran = True
    return swapped(*args, **kwargs)
swap.ran = False
index_swap.swap = swap
"""


def killed_move_shell(
    root: Path,
    moved: tuple[str, str],
    lines: str,
    python: str,
    then: Sequence[str],
    *,
    env: Mapping[str, str],
) -> None:
    """Run THEN in `root` for a move from `moved[0]` to `moved[1]` ($5 `lines`, $6 `python`,
    the git command `then`) with memidx gone once HEAD moved: returns once the shell ended,
    its exit status 0 and git's index lock let go."""
    old, new = moved
    argv = [SHELL or "/bin/sh", "-c", THEN, "memidx", "test", new, old, str(root / ".git"),
            lines, python, *then]  # fmt: skip
    shell = subprocess.Popen(argv, cwd=root, env=dict(env), stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert shell.stdin is not None and shell.stdout is not None
    shell.stdin.write(f"start\nupdate HEAD {new} {old}\nprepare\n")
    shell.stdin.flush()
    assert shell.stdout.readline().strip() == "start: ok"
    assert shell.stdout.readline().strip() == "prepare: ok"
    (root / ".git" / "index.lock").write_text(index_token(shell.pid, new))
    shell.stdin.write("commit\n")
    shell.stdin.flush()
    assert shell.stdout.readline().strip() == "commit: ok"
    shell.stdin.close()  # memidx killed
    assert shell.wait(timeout=60) == 0
    assert not (root / ".git" / "index.lock").exists()


def killed_and_followed(root: Path, argv: Sequence[str], stdin: bytes = b"") -> None:
    """Run `argv`, a memidx that kills itself (SIGKILL) while it moves HEAD in `root`: returns
    once the move's shell it left ended (it runs on in its own session; its end lets git's
    index lock go)."""
    done = subprocess.run(argv, cwd=root, env=clean_env(), input=stdin, capture_output=True,
                          check=False)  # fmt: skip
    assert done.returncode == -9, done.stderr.decode()
    shell_ended(root)


def shell_ended(root: Path) -> None:
    """Wait (30 s at the most) for the move's shell in `root`, which runs on in its own session
    once memidx is killed, to end: its end lets git's index lock go."""
    lock = root / ".git" / "index.lock"
    for _ in range(600):
        if not lock.exists():
            break
        time.sleep(0.05)
    assert not lock.exists(), "the move's shell let the lock go"
