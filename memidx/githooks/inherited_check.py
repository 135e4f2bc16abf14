"""The checks during a merge, cherry-pick or rebase step that git stopped for the person: only
what this side's resolution brings is judged (memidx.git.inherited). A file whose staged blob
HEAD or the other side already holds is named in one warning line instead of blocking the
commit, so a pull can be finished whatever a peer committed with `--no-verify`. A secret is the
exception while refusing the commit can keep it in: one the other side holds but no
remote-tracking branch has still blocks, since this commit is then the last chance to keep it
off the remote. HEAD's commits go out at the next push whatever this commit does, so a secret
they hold is a warning, pushed or not.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from memidx.config import Config
from memidx.git.inherited import Inherited, inherited
from memidx.git.staged import staged_files, staged_repo
from memidx.githooks.notices import warn

# For an inherited file and its problem lines: a warning line, and the lines that still block.
Notice = Callable[[Inherited, Sequence[str]], tuple[str | None, Sequence[str]]]
SIDES = {
    "merge": "the merged branch",
    "cherry-pick": "the cherry-picked commit",
    "rebase": "the commit being rebased",
}


def judged(
    config: Config, problems: Mapping[str, Sequence[str]], notice: Notice, *, pushed: bool
) -> list[str]:
    """The problem lines that block: those of files this side brings, and what `notice` keeps
    of an inherited file's; its warning line, if any, is said. `pushed`: whether `notice`
    needs to know if a file has left the clone (asking costs a walk of history per file)."""
    blocking = {ref: lines for ref, lines in problems.items() if lines}
    taken = _inherited(config, list(blocking), pushed) if blocking else {}
    kept: list[str] = []
    for ref, lines in blocking.items():
        said, block = notice(taken[ref], lines) if ref in taken else (None, lines)
        kept.extend(block)
        if said is not None:
            warn(config, said)
    return kept


def _inherited(config: Config, refs: Sequence[str], pushed: bool) -> dict[str, Inherited]:
    if not config.in_git:
        return {}
    repo = staged_repo(config.root)
    staged = staged_files(repo, config.notes_dir, refs)
    blobs = {ref: f.blob_id for ref, f in staged.items()}
    return inherited(repo, config.notes_dir, blobs, pushed=pushed)


def where(found: Inherited) -> str:
    """How a message names the commit that holds the file: `HEAD`, `the merged branch (…)`."""
    side = SIDES.get(found.operation)
    return "HEAD" if side is None else f"{side} ({found.commit[:12]})"


def english_notice(found: Inherited, lines: Sequence[str]) -> tuple[str, Sequence[str]]:
    """A note not in English that this commit takes as it was committed: a warning."""
    del lines  # its language was said where it was committed
    return (
        f"memidx: warning: {found.ref}: not English, but not blocked: {where(found)} committed "
        "it as it is staged, so this commit does not bring it (an edit of it is checked)",
        [],
    )


def secret_notice(found: Inherited, lines: Sequence[str]) -> tuple[str | None, Sequence[str]]:
    """A secret blocks only where refusing the commit keeps it in: one only this clone's
    commits of the other side hold (those commits go out with this one; aborting keeps them
    in). HEAD's commits go out at the next push whatever this commit does, and a remote holds
    what it holds already: a warning, pointing at how to take the secret out."""
    if found.operation and not found.pushed:
        how = (  # a merge keeps the branch's commits, which go out with it; a pick does not
            "an edit here would leave it in those commits; git merge --abort, take it out of "
            "them, then merge again"
            if found.operation == "merge"
            else "take it out here, or this commit brings it"
        )
        return None, [f"{line} (in {where(found)}, which no remote has: {how})" for line in lines]
    said = f"memidx: warning: {'; '.join(lines)}: not blocked"
    if not found.pushed:  # HEAD's own commits, not pushed yet
        return (
            f"{said}: already in HEAD's commits, which no remote has yet; they go out at the "
            "next push with or without this commit, so refusing it cannot keep the secret in: "
            "take it out of those commits before you push (`git rebase -i`; for a haystack "
            'segment `memidx forget` and `memidx haystack purge`, as README "Forget and '
            'purge" says)',
            [],
        )
    return (
        f"{said}: already in the history of {where(found)}, which a remote holds, so refusing "
        "this commit cannot take it back; rotate the secret and take it out of memory as "
        'README "Forget and purge" says (memidx forget; memidx haystack purge --pushed for a '
        "haystack segment)",
        [],
    )
