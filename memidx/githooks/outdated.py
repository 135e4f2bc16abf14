"""Which of memidx's git hooks a clone lacks, or has from an older memidx: a clone set up before
a stage was added (commit-msg) gets it only from `memidx hooks install` (`make hooks`), which a
`git pull` never runs.
`memidx status` lists them, and the post-merge and post-checkout hooks (which run after a pull)
say so in one line. Read only: a hook of the user's at that path is theirs, and the install
chains it; memidx never writes there from a hook.

Lean: the post-* hooks import it (no dataclasses, no argument parser)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from memidx.githooks.shims import STAGES, shim

SCRIPT = ("hooks", "memidx-hook")  # what memidx's shims run, in the checkout
AFTER_PULL = frozenset({"post-merge", "post-checkout"})  # the hooks that say so


def outdated_shims(root: Path) -> list[str]:
    """The stages whose hook is not memidx's current shim (none there, another hook, an older
    memidx's shim); none in a checkout without hooks/memidx-hook (its shims would have nothing
    to run), nor where git cannot name its hooks folder."""
    if not root.joinpath(*SCRIPT).is_file():
        return []
    folder = _hooks_dir(root)
    if folder is None:
        return []
    return [stage for stage in STAGES if _read(folder / stage) != shim(stage)]


def outdated_line(stages: list[str], root: Path | str) -> str:
    """What `memidx status` and the hooks say of `stages` (from outdated_shims) in the clone at
    `root`: `make hooks` where its Makefile has that target, else `memidx hooks install` (a
    clone without memidx's Makefile was told to run a make target it lacks)."""
    from memidx.remedies import run_hint

    return f"{', '.join(stages)} missing or not memidx's current hook ({run_hint(root, 'hooks')})"


def _hooks_dir(root: Path) -> Path | None:
    """Git's hooks folder for the clone at `root` (memidx.githooks.install installs there)."""
    argv = ["git", "rev-parse", "--path-format=absolute", "--git-path", "hooks"]
    try:
        done = subprocess.run(argv, cwd=root, capture_output=True, text=True, check=False)
    except OSError:
        return None
    folder = done.stdout.strip()
    return Path(folder) if done.returncode == 0 and folder else None


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
