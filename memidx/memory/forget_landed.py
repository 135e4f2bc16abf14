"""forget's words when the commit of a note's deletion landed and what came after it failed
(a git that started with that commit still under way): the note is forgotten, said so."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from memidx.config import Config
from memidx.errors import MemidxError
from memidx.git.quoted import pathspec_word
from memidx.text import display

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memidx.memory.forget import Forgotten


def reflog_top(config: Config, branch: str) -> str:
    """`branch`'s newest reflog entry ("" when it has none): what `moves` counts from."""
    entries = _reflog(config, branch, 1)
    return entries[0] if entries else ""


def moves(config: Config, branch: str, subject: str, since: str) -> set[str]:
    """The commits `branch`'s reflog says memidx moved it to with `subject` in the entries
    newer than `since` (reflog_top's, read before; of the 50 newest). Commits, not entries,
    were compared: a forget again of a note whose forget a `git reset` took back, in the same
    second, made the very commit the first had made, and the look found nothing new."""
    found: set[str] = set()
    for entry in _reflog(config, branch, 50):
        if entry == since:
            break
        commit, _, said = entry.split("\0", 2)
        if said == f"memidx: {subject}":
            found.add(commit)
    return found


def removed_by(config: Config, branch: str, ref: str) -> str:
    """The newest commit of `branch` that changed `ref` (its deletion's, when it landed)."""
    from memidx.git.repo import GitRepo

    args = ("rev-list", "-1", branch, "--", f":(literal){ref}")
    return GitRepo(config.root).run(*args, check=False).decode("utf-8", "replace").strip()


def _reflog(config: Config, branch: str, count: int) -> list[str]:
    """The `count` newest entries of `branch`'s reflog: commit, selector with its time (two
    entries for one commit tell apart), subject; NUL between them."""
    from memidx.git.repo import GitRepo

    args = ("log", "-g", "-n", str(count), "--date=raw", "--format=%H%x00%gd%x00%gs", branch)
    found = GitRepo(config.root).run(*args, "--", check=False).decode("utf-8", "replace")
    return [entry for entry in found.splitlines() if entry.count("\0") >= 2]


def landed(
    config: Config,
    ref: str,
    commit: str,
    exc: MemidxError,
    notice: Callable[[str], None] | None,
    *,
    text_hashes: list[str],
) -> Forgotten:
    """The deletion is committed on the branch, and what came after failed (a git that started
    with that commit still under way): it said `HEAD moved ..., so it was not forgotten`, exit
    1, of a note its branch took out of the remote (tests/benchmark/chaos.py). The index
    follows and drops the vectors of the note's text (`text_hashes`), as after any forget."""
    from memidx.memory.forget import Forgotten
    from memidx.memory.forget_vectors import drop_forgotten_vectors
    from memidx.memory.head_sync import FOLLOW_HINT, follow_commit

    shown, word = display(ref), pathspec_word(ref)
    if notice is not None:
        if late(exc):  # its words were remember's ("not counted as committed yet")
            why = f"{exc.message.split('; it may', 1)[0]}, and may stage {shown} again from "
            why += f"git's index as it read it (once that git ends, see `git status`: {shown} "
            why += f"staged would come back with your next commit: `git rm --cached -- {word}`)"
        elif exc.hint.startswith("run `git reset"):  # the index did not follow: its way out
            why = f"{exc.message.removeprefix(f'committed {shown} as {commit[:12]}, but ')} "
            why += f"({exc.hint})"
        else:
            why = f"{exc.message} (once that ends, `git log -1 --oneline -- {word}` names the "
            why += "commit that removed it)"
        notice(f"warning: {shown} is forgotten ({commit[:12]}), but {why}")
    why = follow_commit(config, notice)
    if why is None:
        drop_forgotten_vectors(config, ref, text_hashes, notice)
    elif notice is not None:  # the next sync drops its rows and vectors
        notice(f"warning: the index did not follow and still holds {shown}: {why} ({FOLLOW_HINT})")
    return Forgotten("note", ref, commit=commit)


def leave_work_tree(
    config: Config,
    ref: str,
    kept: bytes | None,
    notice: Callable[[str], None] | None,
    *,
    link: bytes | None = None,
) -> bool:
    """Delete the note's file once HEAD lacks it, when the move's restore did not (no POSIX
    shell; git's index held) and it is still the file forgotten; an edit since (or a file
    made since where there was none) is the person's: kept, untracked, and said. A note that
    is a link (`link`: its target) goes while it is still that link, what it names kept.
    True when a file is left at the note's path (said)."""
    import contextlib

    from memidx.git.index_swap import remove_emptied
    from memidx.git.judged_unlink import unlink_judged
    from memidx.git.repo import GitRepo

    path = config.root / ref
    if not os.path.lexists(path) or GitRepo(config.root).has("HEAD", ref):
        return False
    with contextlib.suppress(OSError):
        if link is not None and path.is_symlink() and link_target(path) == link:
            path.unlink()  # the link, never followed
            remove_emptied(config.root, path.parent)
            return False
        if kept is not None and unlink_judged(path, kept) and not os.path.lexists(path):
            remove_emptied(config.root, path.parent)  # README: an emptied folder goes too
            return False  # (a file there now was saved after the forget's: the person's)
    if notice is not None:
        notice(
            f"warning: {display(ref)} changed while it was being forgotten: the note is "
            "forgotten, your edit is left in the work tree, untracked (`git add -- "
            f"{pathspec_word(ref)}` and commit it to keep it; delete it if it should go)"
        )
    return True


def link_target(path: Path) -> bytes | None:
    """The target of the link at `path`, as git holds it (the link's bytes); None for no link."""
    try:
        return os.fsencode(path.readlink())
    except OSError:  # no link there (EINVAL), or nothing at all
        return None


def late(exc: BaseException) -> bool:
    """Whether `exc` is memidx.git.late's: the commit was made, a git that started with it
    still runs (or changed the note in HEAD since)."""
    from memidx.git.late import StillUnderWay

    return isinstance(exc, StillUnderWay)
