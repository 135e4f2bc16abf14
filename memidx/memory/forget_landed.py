"""forget's words when the commit of a note's deletion landed and what came after it failed
(a git that started with that commit still under way): the note is forgotten, said so."""

from __future__ import annotations

from collections.abc import Callable

from memidx.config import Config
from memidx.errors import MemidxError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memidx.memory.forget import Forgotten


def moves(config: Config, branch: str, subject: str) -> set[str]:
    """The commits `branch`'s recent reflog says memidx moved it to with `subject`."""
    from memidx.git.repo import GitRepo

    args = ("log", "-g", "-n", "50", "--format=%H %gs", branch, "--")
    found = GitRepo(config.root).run(*args, check=False).decode("utf-8", "replace")
    said = f" memidx: {subject}"
    return {line[:40] for line in found.splitlines() if line[40:] == said}


def landed(
    config: Config, ref: str, commit: str, exc: MemidxError, notice: Callable[[str], None] | None
) -> Forgotten:
    """The deletion is committed on the branch, and what came after failed (a git that started
    with that commit still under way): it said `HEAD moved ..., so it was not forgotten`, exit
    1, of a note its branch took out of the remote (tests/benchmark/chaos.py)."""
    from memidx.memory.forget import Forgotten
    from memidx.memory.head_sync import follow_commit

    if notice is not None:
        if late(exc):  # its words were remember's ("not counted as committed yet")
            why = f"{exc.message.split('; it may', 1)[0]}, and may stage {ref} again from git's "
            why += f"index as it read it (once that git ends, see `git status`: {ref} staged "
            why += f"would come back with your next commit: `git rm --cached {ref}`)"
        else:
            why = f"{exc.message} (once that ends, `git log -1 --oneline -- {ref}` names the "
            why += "commit that removed it)"
        notice(f"warning: {ref} is forgotten ({commit[:12]}), but {why}")
    follow_commit(config, notice)
    return Forgotten("note", ref, commit=commit)


def late(exc: BaseException) -> bool:
    """Whether `exc` is memidx.git.late's: the commit was made, a git that started with it
    still runs (or changed the note in HEAD since)."""
    from memidx.git.late import StillUnderWay

    return isinstance(exc, StillUnderWay)
