"""What `memidx share` is about to push holds no secret: the commits on HEAD that its push
target (the branch's upstream on its remote) lacks, read as the pre-push check reads a push
(memidx.githooks.push_check): their messages and the notes they add or change. git runs no
message hook for a commit made with `--no-verify`, nor for one that `git cherry-pick` or `git
rebase` carried over whole, so share refuses before anything is committed, pulled or pushed
(a clone without memidx's pre-push hook too)."""

from __future__ import annotations

from memidx.config import Config
from memidx.errors import MemidxError

ZERO = "0" * 40  # git's id of a ref the remote lacks


def refuse_outgoing_secrets(config: Config) -> None:
    """MemidxError naming the first secret in what share's push would send, and how many
    more; none when there is no remote or no upstream (share says so itself)."""
    from memidx.git.repo import GitRepo
    from memidx.githooks.push_check import push_problems
    from memidx.githooks.push_refs import Update
    from memidx.githooks.secret_check import BASELINE
    from memidx.remedies import command_for

    repo = GitRepo(config.root)
    branch = repo.run("symbolic-ref", "-q", "--short", "HEAD", check=False).decode().strip()
    head = repo.run("rev-parse", "-q", "--verify", "HEAD^{commit}", check=False).decode().strip()
    if not branch or not head:
        return  # a detached HEAD or no commit yet: share names what is missing
    remote = repo.run("config", f"branch.{branch}.remote", check=False).decode().strip()
    merge = repo.run("config", f"branch.{branch}.merge", check=False).decode().strip()
    if not remote or not merge:
        return  # no upstream: share refuses before any push
    # what the remote holds as last fetched (git's own log trusts it): the pre-push check
    # counts a pushed branch's tracking branch that disagrees with this value as stale
    tracking = f"refs/remotes/{remote}/{merge.removeprefix('refs/heads/')}^{{commit}}"
    known = repo.run("rev-parse", "-q", "--verify", tracking, check=False).decode().strip()
    unread: list[str] = []
    problems = push_problems(config, remote, [Update("HEAD", head, merge, known or ZERO)], unread)
    if not problems:
        return
    more = f" (and {len(problems) - 1} more)" if problems[1:] else ""
    again = f"then {command_for(config.root, 'sync')} again"  # `make sync` where it has the rule
    if problems[0] in unread:  # no allow marker or baseline lets it through
        raise MemidxError(
            f"{problems[0]}{more}: git push would send it to {remote} unchecked, so nothing "
            "was pulled or pushed",
            "make it smaller or take it out (git rebase -i, `edit`): no allow marker lets it "
            f"through; {again}",
        )
    raise MemidxError(
        f"{problems[0]}{more}: a secret git push would send to {remote}, so nothing was pulled "
        "or pushed",
        "take it out (a message: git rebase -i, `reword`, or git commit --amend for the last "
        "commit; a note: git rebase -i, `edit`), or allow a false positive with `memidx: "
        f"allow-secret` on its line or in {BASELINE}, {again}",
    )
