"""The messages `memidx share` is about to push: the commits on HEAD that no remote-tracking
branch holds. git runs no message hook for a commit made with `--no-verify`, nor for one that
`git cherry-pick` or `git rebase` carried over whole, so share reads their messages with the
commit-msg check's detectors, allow marker and baseline, and pushes none that holds a secret."""

from __future__ import annotations

from collections.abc import Iterator

from memidx.config import Config
from memidx.errors import MemidxError


def message_secrets(log: str, allowed: set[str]) -> Iterator[tuple[str, str]]:
    """(commit, kind) of each secret in `git log -z --format=%h%n%B`'s output that neither an
    allow marker on its line nor the baseline's fingerprints (`allowed`) allow."""
    from memidx.hashes import sha256_hex
    from memidx.secrets.detect import find_secrets

    for entry in log.split("\0"):
        commit, _, message = entry.partition("\n")
        for found in find_secrets(message, allow=True):
            if sha256_hex(message[found.start : found.end].encode("utf-8")) not in allowed:
                yield commit, found.kind


def refuse_secret_messages(config: Config) -> None:
    """MemidxError naming the commits about to be pushed whose messages hold a secret; none
    when there is no remote to push to (a memory kept on one machine pushes nothing)."""
    from memidx.git.repo import GitRepo
    from memidx.githooks.secret_check import BASELINE, read_baseline

    repo = GitRepo(config.root)
    if not repo.run("remote", check=False).strip():
        return
    argv = ("log", "-z", "--format=%h%n%B", "HEAD", "--not", "--remotes", "--")
    log = repo.run(*argv, check=False).decode("utf-8", "replace")  # no HEAD yet: nothing
    if not log.strip("\0\n"):
        return  # nothing of this clone's own to push: the usual share
    found = list(message_secrets(log, read_baseline(config.root / BASELINE)))
    if not found:
        return
    commits = list(dict.fromkeys(commit for commit, _ in found))
    kinds = ", ".join(dict.fromkeys(kind for _, kind in found))
    named = f"commit {commits[0]}" + (f" and {len(commits) - 1} more" if commits[1:] else "")
    raise MemidxError(
        f"{named} to push {'holds' if len(commits) == 1 else 'hold'} a secret in the message "
        f"({kinds}), which git push would send to the remote, so nothing was pulled or pushed",
        "take it out of the message (git rebase -i, `reword`; git commit --amend for the last "
        f"commit), or allow a false positive with `memidx: allow-secret` on its line or in "
        f"{BASELINE}, then make sync again",
    )
