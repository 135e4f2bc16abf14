"""The pending notes (memory/pending_notes.py) a post-* git hook commits once that git
command is done: never between two picks of a sequence, and by a finisher after a `git am`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memidx.config import Config
from memidx.errors import MemidxError
from memidx.git.underway import git_dir, stopped_pick
from memidx.memory.pending_mark import FOLDER, any_pending
from memidx.memory.pending_notes import (
    HOOK_CAME,
    HOOK_LOCK_WAIT,
    HOOK_WAIT,
    LOCK,
    Committed,
    commit_pending,
)
from memidx.portable import file_lock
from memidx.state_folder import ensure_folder


def finish_after_git(config: Config, notice: Callable[[str], None]) -> Committed:
    """What a post-* git hook runs: the notes left pending while that git command held the
    clone, committed now that it is done. A `remember` under way (remember.lock held past
    HOOK_LOCK_WAIT) commits them itself once that command ends; so does one on a detached
    HEAD once back on a branch."""
    from memidx.git.branch import on_a_branch

    if not any_pending(config):
        return Committed({})
    try:
        on_a_branch(config.root, "the pending notes were not committed yet")
    except MemidxError:
        return Committed({})  # a rebase under way: its post-rewrite hook comes once it is done
    if _picking(config):
        return Committed({})  # a commit now failed git's next pick (exit 128): a later one
    if stopped_pick(git_dir(config.root)):  # a `git am` (its post-applypatch hook) or a pick
        _finisher_for_git(config, notice)
        return Committed({})
    mark = config.state_dir / FOLDER / HOOK_CAME
    ensure_folder(mark.parent)  # `rm -rf .memidx` leaves the entries
    mark.touch()  # before the lock: a remember that holds it sees the mark once it lets go
    with file_lock(config.state_dir / LOCK, timeout=HOOK_LOCK_WAIT) as taken:
        if not taken:
            return Committed({})
        mark.unlink(missing_ok=True)  # this hook commits them: no remember need try again
        return commit_pending(config, HOOK_WAIT, notice)


def _finisher_for_git(config: Config, notice: Callable[[str], None]) -> None:
    """A finisher that commits the notes once git ends: a `git am --continue` whose last patch's
    hook committed one died ("Dirty index: cannot apply patches", its index read before the
    hook), and no hook follows an am; the one `remember` started ends after 10 minutes."""
    from memidx.memory.pending_finisher import start_finisher

    start_finisher(config, notice)


def _picking(config: Config) -> bool:
    """Whether git's sequencer has more to do (`git cherry-pick A..B`, `git revert A..B`): the
    post-commit hook of each pick runs before the next, which a note committed then made fail,
    "your local changes would be overwritten" (git 2.39). The last pick's hook sees the
    sequencer still there, its todo down to that pick, and no hook comes after it."""
    from memidx.git.repo import GitRepo

    found = GitRepo(config.root).run(
        "rev-parse", "--path-format=absolute", "--git-path", "sequencer", check=False
    )
    folder = Path(found.decode().strip()) if found.strip() else None
    if folder is None or not folder.is_dir():
        return False
    try:  # the pick just committed heads the todo: the last pick's hook is the last one there is
        todo = (folder / "todo").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return True
    return len([line for line in todo if line.strip() and not line.startswith("#")]) != 1
