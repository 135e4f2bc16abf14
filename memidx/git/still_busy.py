"""What memidx says when it gives up waiting for a person's git before it moves HEAD, and the
one git it does not wait for at all: a `git stash -p` (`--patch`) at its prompt waits for a
person, for as long as they take to answer, and memidx waited its whole bound (10 s) for it
before it kept the note pending, said "a git command taking the index here is still under
way". It takes git's index only once answered and fails if HEAD moved meanwhile (its stash is
built on the HEAD it read), so memidx does not move HEAD then: it answers at once, pending."""

from __future__ import annotations

from pathlib import Path

from memidx.errors import GitBusy


def at_a_prompt(root: Path) -> bool:
    """Whether a `git stash -p` of this clone runs (Linux /proc; elsewhere never)."""
    from memidx.git.hunk_prompts import stash_asks
    from memidx.git.newcomers import read_proc
    from memidx.git.publish import committers

    for pid in committers(root, frozenset({"stash"})):
        try:
            words = read_proc(f"/proc/{pid}/cmdline").decode("utf-8", "replace").split("\0")
        except OSError:
            continue  # ended since
        if "stash" in words and stash_asks(words[words.index("stash") + 1 :]):
            return True
    return False


def still_busy(root: Path, git_dir: Path, undone: str) -> None:
    """GitError naming the git command memidx gave up waiting for, if one is still there."""
    from memidx.git.commit_error import index_held
    from memidx.git.publish import COMMITTING, INDEX_TAKERS, SWITCHERS, committing, in_the_way

    if (git_dir / "index.lock").exists():
        raise index_held(git_dir / "index.lock", root, undone)
    if committing(root):
        still = f"a git commit in this clone is still under way; {undone} (so that commit"
        raise GitBusy(f"{still} does not fail)", "try again once it ends")
    if at_a_prompt(root):  # not waited for: it waits for a person
        raise GitBusy(
            f"a `git stash -p` here waits at its prompt for you; {undone} (it fails when HEAD "
            "moves under it)",
            "answer it, then try again",
        )
    if in_the_way(root, COMMITTING | SWITCHERS | INDEX_TAKERS):  # not "HEAD kept moving"
        what = "git switch or checkout" if in_the_way(root) else "git command taking the index"
        raise GitBusy(f"a {what} here is still under way; {undone}", "try again")
