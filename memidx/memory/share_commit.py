"""The merge commit `memidx share` makes, as git merge makes it: its message (fmt-merge-msg)
and its signature (commit.gpgSign). Split from memidx.memory.share_move."""

from __future__ import annotations

from memidx.config import Config
from memidx.errors import GitError
from memidx.memory.share_check import Merge, upstream_of
from memidx.memory.share_git import NoAnswer, reason, run_git

UNDONE = "nothing was merged, pulled or pushed"  # share says it when it stops
_SIGN_HINT = (
    "nothing is lost: this clone's commits stay here, for the next make sync; let gpg sign "
    "without asking (its agent holding the key's passphrase: sign once in a terminal), or git "
    "config commit.gpgSign false for this clone"
)


def merge_commit(config: Config, here: str, tree: str, merge: Merge) -> str:
    """The merge commit of `tree` on HEAD and the upstream, with git merge's message, signed
    as git merge signs it when commit.gpgSign is set (commit-tree ignores that setting: a
    remote that requires signed commits refused share's push)."""
    message = merge_message(config, here, merge.theirs)
    sign = run_git(config, "config", "--type=bool", "commit.gpgSign").stdout.strip() == "true"
    argv = ("commit-tree", *(("-S",) if sign else ()), tree, "-p", merge.head, "-p", merge.theirs)
    argv = (*argv, "-m", message)
    try:
        made = run_git(config, *argv)
    except NoAnswer:  # gpg waited on a pinentry no one answered (a desktop's window)
        raise unsigned_in_time(config) from None
    if made.returncode != 0 and sign:  # gpg failed (no key, or a passphrase none can type)
        raise GitError(
            f"git could not sign share's merge commit (commit.gpgSign: {reason(made)}), {UNDONE}",
            f"{_SIGN_HINT}, then make sync again",
        )
    if made.returncode != 0:
        raise GitError(f"git commit-tree failed: {reason(made)} {UNDONE}", "mend what git says")
    return made.stdout.strip()


def unsigned_in_time(config: Config) -> GitError:
    """The error for share's merge commit gpg did not sign in network_timeout (commit-tree's,
    or the fallback git merge's: both stopped, the merge undone)."""
    return GitError(
        f"git did not sign share's merge commit in {config.network_timeout} s (commit.gpgSign: "
        f"gpg waited, maybe for a passphrase it asks in a window), so memidx stopped it; {UNDONE}",
        f"{_SIGN_HINT}, or give it longer (network_timeout in [tool.memidx], or "
        "MEMIDX_NETWORK_TIMEOUT), then make sync again",
    )


def merge_message(config: Config, here: str, theirs: str) -> str:
    """git merge's message for merging the upstream into `here`, made by git's own
    fmt-merge-msg as git merge makes it: ` into <branch>` but for main and master
    (merge.suppressDest), the shortlog of what comes under merge.log, merge.branchdesc."""
    name = run_git(config, "rev-parse", "--abbrev-ref", upstream_of(here)).stdout.strip()
    plain = f"Merge remote-tracking branch '{name or theirs}'"
    merged = f"{theirs}\t\tremote-tracking branch '{name}' of .\n"  # as git merge says it
    into = ("--into-name", here.removeprefix("refs/heads/"))
    made = run_git(config, "fmt-merge-msg", *into, given=merged)
    if not name or made.returncode != 0:
        return plain
    # git merge credits no people when no editor opens: fmt-merge-msg's `# By` lines go
    kept = run_git(config, "stripspace", "--strip-comments", given=made.stdout)
    return kept.stdout if kept.returncode == 0 and kept.stdout.strip() else plain
