"""`memidx share`'s fetch, which never writes a ref of the person's while a git of theirs
fetches.

git's fetch reads each remote-tracking ref's old value before the pack comes and updates it with
that value checked: share's plain `git fetch` moved `refs/remotes/origin/main` under a person's
`git pull` at the same moment, which failed with "cannot lock ref 'refs/remotes/origin/main': is
at X but expected Y" (the chaos bench, seeds 1 and 4). So share fetches the branch's upstream
into a ref of memidx's own (`refs/memidx/fetched/<branch>`, `--refmap=` so git's opportunistic
update of the configured ref is off, no tags, no FETCH_HEAD), then brings the person's
remote-tracking ref to it when no git of theirs that reads it before it writes it (CHECKED) runs
in the clone, only from the value it had before (a fetch of theirs since is theirs to keep):
`git status`'s ahead/behind says what the remote holds, as after a plain `git fetch`. One look,
no wait: a fetch of theirs that runs then brings the ref itself, and share's push writes it too.
It waited 10 s for any `git fetch`, `pull`, `push` or `remote` of theirs: a push whose pre-push
hook ran the tests held every share 10 s, though a push writes its ref unchecked and a pull's
fetch is a `git fetch` child, looked for as such
(tests/cli/test_share_beside_a_persons_push.py). share merges its own ref
(share_check.fetched_of), never the person's: one held back by a fetch of theirs was merged
stale, and each push was refused until share gave up (300 s). An upstream with no
remote-tracking ref (a single-branch clone) or gone from the remote is fetched as before
(memidx's own ref of it deleted: merged, it would be stale), so share's merge says what is wrong
in git's words. memidx's own refs of branches gone are pruned (_prune)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable

from memidx.config import Config
from memidx.memory.share_check import FETCHED
from memidx.memory.share_git import run_git
from memidx.memory.share_merge import tracking

OWN = FETCHED  # share's merge merges it (share_check.fetched_of), not the person's ref
ZERO = "0" * 40  # update-ref's "the ref must not exist yet"
# the gits that fail when a remote-tracking ref moves under them (read before, written checked
# at their end); a push writes its own unchecked, a pull's fetch is a `git fetch` child of its own
CHECKED = frozenset({"fetch", "remote"})
PAUSE = 0.05


Git = Callable[..., subprocess.CompletedProcess[str]]  # run_git's shape: (config, *args)


def fetch(config: Config, run: Git = run_git) -> subprocess.CompletedProcess[str]:
    """Fetch the upstream of HEAD's branch as above, its fetches through `run` (share's own
    runner); git's answer (the plain fetch's where it stands in)."""
    here, remote, merge = tracking(config)
    name = here.removeprefix("refs/heads/")
    found = run_git(config, "rev-parse", "--symbolic-full-name", f"{name}@{{upstream}}")
    tracked = found.stdout.strip() if found.returncode == 0 else ""
    own = OWN + name
    _prune(config, own)
    if not (name and merge.startswith("refs/") and tracked.startswith("refs/remotes/")):
        _drop(config, own)  # one of an earlier share would be merged for this fetch's
        return plain_fetch(config, run)
    before = run_git(config, "rev-parse", "-q", "--verify", tracked).stdout.strip()
    args = ("--no-write-fetch-head", "--no-tags", "--refmap=", remote, f"+{merge}:{own}")
    fetched = run(config, "fetch", "-q", *args)
    if fetched.returncode != 0:  # gone from the remote, an old git: as before
        if not _standing_in(fetched):
            return fetched
        _drop(config, own)
        return plain_fetch(config, run)
    new = run_git(config, "rev-parse", "-q", "--verify", own).stdout.strip()
    if new and new != before and no_fetch_of_theirs(config, time.monotonic()):
        run_git(config, "update-ref", "-m", "memidx share: fetch", tracked, new, before or ZERO)
    return fetched


def _drop(config: Config, own: str) -> None:
    if run_git(config, "rev-parse", "-q", "--verify", own).returncode == 0:
        run_git(config, "update-ref", "-d", own)


def _prune(config: Config, own: str) -> None:
    """Delete memidx's own fetched refs (only those, under OWN) of branches gone: the local
    branch deleted, or its upstream gone from the remote-tracking refs (`git fetch --prune`
    after a deletion on the remote); each was kept for good. Not for the upstream alone one of
    a branch checked out in another work tree: that one's share may be between its fetch and
    bringing `origin/<branch>` along, and prunes it at its own start. And those in `own`'s way,
    left for a branch since deleted: of `fix` for `fix/login`, of `main/old` for `main`. git
    cannot create a ref beside one named as its folder or under it ("cannot lock ref ...
    exists"): every share failed its fetch. Two such branches never live at once (refs/heads/
    holds the same names), so no share of another work tree is using one. Each is deleted
    from the value judged: one another share fetched since stays."""
    form = "--format=%(refname)%00%(objectname)"
    listed = run_git(config, "for-each-ref", form, OWN)
    mine = listed.stdout.splitlines() if listed.returncode == 0 else []
    followed, elsewhere = _heads(config)
    remotes = run_git(config, "for-each-ref", "--format=%(refname)", "refs/remotes/").stdout
    tracked = set(remotes.splitlines())
    for ref, _, value in (line.partition("\0") for line in mine):
        branch = "refs/heads/" + ref.removeprefix(OWN)
        up = followed.get(branch)
        gone = up is None or (up not in tracked and branch not in elsewhere)
        if gone or own.startswith(f"{ref}/") or ref.startswith(f"{own}/"):
            run_git(config, "update-ref", "-d", ref, value)


def _heads(config: Config) -> tuple[dict[str, str], set[str]]:
    """The local branches with the upstream each follows ("" for none), and those checked out
    in a work tree other than this one (none known before git 2.23: no %(worktreepath))."""
    from pathlib import Path

    form = "--format=%(refname)%00%(upstream)%00"
    done = run_git(config, "for-each-ref", f"{form}%(worktreepath)%00", "refs/heads/")
    if done.returncode != 0:
        done = run_git(config, "for-each-ref", f"{form}%00", "refs/heads/")
    here, followed, elsewhere = Path(config.root).resolve(), dict[str, str](), set[str]()
    for record in done.stdout.split("\0\n"):  # a work tree's path may hold a newline
        ref, up, there = (*record.split("\0"), "", "")[:3]
        followed[ref] = up
        if there and Path(there).resolve() != here:
            elsewhere.add(ref)
    return followed, elsewhere


def _standing_in(fetched: subprocess.CompletedProcess[str]) -> bool:
    """Whether the plain fetch stands in: the upstream is gone from the remote (share's merge
    names it), or this git lacks --no-write-fetch-head (older than 2.29)."""
    said = fetched.stderr
    return "couldn't find remote ref" in said or (
        fetched.returncode == 129 and "no-write-fetch-head" in said
    )


def plain_fetch(config: Config, run: Git = run_git) -> subprocess.CompletedProcess[str]:
    """`git fetch`, leaving FETCH_HEAD alone: a person's `git pull` at the same moment reads
    the FETCH_HEAD its own fetch wrote to know what to merge, and read share's instead
    ("Cannot rebase onto multiple branches."). git older than 2.29 lacks the option."""
    fetched = run(config, "fetch", "-q", "--no-write-fetch-head")
    if fetched.returncode == 129 and "no-write-fetch-head" in fetched.stderr:
        return run(config, "fetch", "-q")
    return fetched


def no_fetch_of_theirs(config: Config, until: float, commands: frozenset[str] = CHECKED) -> bool:
    """Wait (until `until`) while a git of the clone that fails when a remote-tracking ref
    moves under it runs (one of `commands`), in any of its work trees: a linked one (`git
    worktree add`) shares them (Linux /proc; elsewhere none is seen); whether none does now.
    share's push waits so (it writes origin/<branch> as git's does: a fetch of theirs that
    read it before failed at its end; a push of theirs, its pre-push hook running the tests,
    was waited for 300 s, and nothing pushed, though nothing of it could fail)."""
    from memidx.git.checkouts import work_trees
    from memidx.git.publish import committers
    from memidx.git.repo import GitRepo

    trees = work_trees(GitRepo(config.root)) or [config.root]
    for _ in range(100_000):  # bounded by `until`
        if not committers(trees[0], commands, also=trees[1:]):
            return True
        if time.monotonic() > until:
            return False
        time.sleep(PAUSE)
    return False
