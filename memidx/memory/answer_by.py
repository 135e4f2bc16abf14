"""How long a `remember` with an answer time waits (the MCP server's: an agent's tool call
has a deadline, and the server's remembers run one after another). The command line waits
for a person's git as it always did (10 s, memidx/git/commit.py); a remember that must answer
by a time waits only what is left of it, then leaves its note pending, committed by the
hook after that git, the finisher it starts or the next remember: behind a running rebase
or `git commit -a`, five remembers sent at once answered after 10, 20 and 30 s (refused),
or 10 to 15 s (pending), one after another."""

from __future__ import annotations

import time

from memidx.config import Config
from memidx.errors import GitBusy, MemidxError
from memidx.git.branch import REBASE_WAIT, on_a_branch, rebased_branch
from memidx.memory.pending_notes import BEHIND_WAIT, Committed

LEAST_WAIT = 0.2  # seconds a remember past its answer time still gives git: a brief one
# (another memidx commit, a hook's) is waited out rather than left for the finisher


def left(deadline: float | None, most: float) -> float:
    """Seconds to wait, at most `most`: less as the answer time nears, never under LEAST_WAIT."""
    if deadline is None:
        return most
    return min(most, max(LEAST_WAIT, deadline - time.monotonic()))


def branch_for(config: Config, undone: str, deadline: float | None) -> tuple[str, bool]:
    """The branch the note is committed on, and whether a rebase of it runs now: with an
    answer time, a rebase still running past it keeps the note for the branch it rewrites
    (written now, committed once the rebase ends) instead of refusing it."""
    try:
        return on_a_branch(config.root, undone, wait=left(deadline, REBASE_WAIT)), False
    except MemidxError:
        if deadline is None:
            raise
        rebased = rebased_branch(config.root)
        if rebased is None:  # none runs now: it ended (or stopped) since the first look, which
            return on_a_branch(config.root, undone), False  # refused a note for its branch
        return rebased, True


def commit_wait(older: bool, deadline: float | None) -> float | None:
    """What commit_pending waits for git: BEHIND_WAIT behind an older pending note (a git held
    the clone past a remember's wait already), else its own (None), less by an answer time."""
    from memidx.git.commit import WAIT_SECONDS

    if deadline is None:
        return BEHIND_WAIT if older else None
    return left(deadline, BEHIND_WAIT if older else WAIT_SECONDS)


def rebase_said(done: Committed, ref: str, rebased: str | None) -> None:
    """For a note kept while its branch (`rebased`, None when none was) is rebased and not
    committed since: why it waits, as commit_pending says a busy git (HEAD is detached there,
    so it tried no note), in the words `remember` says first."""
    if rebased is not None and ref not in done.commits:
        name = rebased.removeprefix("refs/heads/")
        done.busy = done.busy or GitBusy(
            f"a rebase of {name} is under way (HEAD is detached)", "wait for it to end"
        )


def clear_of_the_rebase(config: Config, ref: str, rebased: str | None, *, made: bool) -> None:
    """Refuse a note kept for `rebased` while its rebase runs when that branch holds its path:
    a commit the rebase still picks adds it (the agent remembered it before), and the file
    written in the work tree stopped the person's rebase there ("untracked working tree files
    would be overwritten by merge"). The file this remember `made` is taken away first."""
    from memidx.git.repo import GitRepo

    if rebased is None:  # no rebase runs
        return
    repo = GitRepo(config.root)
    if not repo.run("rev-parse", "--verify", "-q", f"{rebased}:{ref}", check=False).strip():
        return
    if repo.run("rev-parse", "--verify", "-q", f"HEAD:{ref}", check=False).strip():
        return  # picked already: tracked, no pick is stopped by it
    if made:
        (config.root / ref).unlink(missing_ok=True)
    name = rebased.removeprefix("refs/heads/")
    raise GitBusy(
        f"a rebase of {name} is under way (HEAD is detached), and {name} holds {ref}, which "
        "it brings back: the note was not written, so that the rebase is not stopped",
        "try again once that git command ends (the note may be remembered already)",
    )
