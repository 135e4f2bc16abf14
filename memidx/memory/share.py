"""`memidx share` (`make sync`): commit this clone's haystack, then pull and push until the
remote has everything, retrying with backoff while other clones push at the same time.

The merge moves HEAD, so it waits (memidx.git.commit.WAIT_SECONDS at most) while a git of
this clone is committing or holds the index, as memidx's own commits do. memidx fetches
first, then merges the branch's upstream as that fetch left it (with plumbing:
memidx.memory.share_move; not `git pull`, which would fetch again: seconds on a network
remote between the look and the merge, time for a person's `git commit` to start), and
pushes the branch it began on to that upstream, both by name (`git push <remote>
refs/heads/<it>:<its upstream>`), so a branch that follows another name (local `notes`
following `origin/main`) is shared under git's default `push.default = simple` too, and a
`git switch` meanwhile never merges into nor pushes another branch. A branch
with no upstream is named before any commit or fetch. A push rejected because the remote
moved (another clone pushed first) is the normal case when several machines sync at once:
fetch and merge again (git's hooks index what arrives) and push again. A merge that would
stop on a conflict, or change what the person has not committed, never starts (computed
first: memidx.memory.share_check), so the clone stays exactly as it was. Two notes
`remember` wrote under one name on two machines are moved apart before the merge (twins).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from subprocess import CompletedProcess

from memidx.config import Config
from memidx.errors import GitError
from memidx.git.commit_lock import WAIT_SECONDS, serialized
from memidx.memory.share_blips import Blips
from memidx.memory.share_check import fetched_of, merge_in_progress
from memidx.memory.share_failures import moved
from memidx.memory.share_fetch import fetch
from memidx.memory.share_git import NoAnswer, answered
from memidx.memory.share_git import reason as _reason
from memidx.memory.share_git import run_git as _git
from memidx.memory.share_merge import merge_failed
from memidx.memory.share_move import merge_upstream
from memidx.memory.share_start import committed
from memidx.memory.twins import Renamed, part_twins

ATTEMPTS = 40  # and at most DEADLINE seconds: ten clones pushing at once need more than ten
# Fetches failing in a row before share gives up: a blip is tried again, an offline machine told.
FETCH_TRIES = 5
DEADLINE = 300.0
FIRST_PAUSE = 0.2  # seconds, doubling, at most MAX_PAUSE, with full jitter
MAX_PAUSE = 10.0


@dataclass(frozen=True, slots=True)
class Shared:
    """What a share did: the haystack commit (if any), pulls and pushes run."""

    haystack_commit: str | None
    attempts: int
    pushed: bool
    remote: bool
    renamed: tuple[Renamed, ...] = ()  # this clone's notes moved beside the remote's twins


def share(
    config: Config,
    *,
    say: Callable[[str], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    before: Callable[[], None] | None = None,
) -> Shared:
    """Commit the haystack (after `before`: the pending notes), then pull and push with
    retries; see the module docstring. Each step that moves HEAD holds `following` until the
    index is at it (a search meanwhile says the index is brought up to date); the fetch, the
    push and the pauses between tries do not (the index is behind for another reason then)."""
    commit, remotes, here, remote, branch = committed(config, before, say)
    if not remotes:
        return Shared(commit, 0, pushed=False, remote=False)
    started, attempt, failed, unfetched = time.monotonic(), 0, "", 0
    renamed: tuple[Renamed, ...] = ()
    blips = Blips(remote, sleep, say)  # failures that may pass in a moment (DNS, a rate limit)
    for attempt in range(1, ATTEMPTS + 1):
        if attempt > 1 and time.monotonic() - started > DEADLINE:
            break
        # the network, before the look: moves no HEAD nor waits for a person's fetch
        fetched = answered(config, partial(fetch, config, _git), "fetch", remote, _kept(renamed))
        if fetched.returncode != 0:  # maybe a transient failure: try again, a few times
            failed, unfetched = f"git fetch failed: {_reason(fetched)}", unfetched + 1
            if blips.passed(fetched, "fetch", _kept(renamed)):  # a DNS blip: paused
                continue
            if unfetched >= FETCH_TRIES:
                break
            _pause(attempt, sleep, say, failed)
            continue
        unfetched = 0
        renamed += part_twins(config, say)  # before the merge, which would stop on them
        why = _merge_followed(config, here, say)
        if why:
            failed = f"git merge failed: {why}"
            _pause(attempt, sleep, say, failed)
            continue
        _no_fetch_under_the_push(config, started + DEADLINE, renamed, say)
        push = partial(_git, config, "push", remote, f"{here}:{branch}")  # push.default aside
        pushed = answered(config, push, "push", remote, _kept(renamed))
        if pushed.returncode == 0:
            return Shared(commit, attempt, pushed=True, remote=True, renamed=renamed)
        if not moved(pushed.stderr):  # another clone's push, else it fails again
            if blips.passed(pushed, "push", _kept(renamed)):  # a rate limit: paused
                failed = f"git push failed: {_reason(pushed)}"
                continue
            raise GitError(f"git push failed: {_reason(pushed)}", f"{_kept(renamed)}; {_AGAIN}")
        failed = ""
        _pause(attempt, sleep, say, "the remote moved (another clone pushed)")
    seconds = time.monotonic() - started
    if failed:  # the last try failed before the push: name that, not a moving remote
        look = (  # the merge in this clone, or the network
            "look at this clone's state (git status)"
            if failed.startswith("git merge")
            else "check the remote and the network (git fetch)"
        )
        raise GitError(
            f"{attempt} tries in {seconds:.0f} s did not get through; the last: {failed}",
            f"{_kept(renamed) + '; ' if renamed else ''}{look}, then make sync again",
        )
    raise GitError(
        f"the remote kept moving: {attempt} pulls and pushes in {seconds:.0f} s did not get "
        "through",
        "run make sync again",
    )


# A push that failed for good: what this clone committed stays, and the next share pushes it.
_AGAIN = "mend what git says (a protected branch, the network, the remote), then make sync again"


def _kept(renamed: tuple[Renamed, ...]) -> str:
    """What a failed share leaves for the next: its commits, the notes it moved among them."""
    moved = "".join(f", {move.was} moved to {move.ref}" for move in renamed)
    return f"nothing is lost: this clone's commits{moved} stay here, for the next make sync"


def _no_fetch_under_the_push(
    config: Config, until: float, renamed: tuple[Renamed, ...], say: Callable[[str], None] | None
) -> None:
    """Wait (until `until`) for the person's git fetch (a pull's too) to end: share's push
    writes origin/<branch>, and a fetch of theirs that read it before failed at its end
    ("cannot lock ref"); GitError, nothing pushed, when one still runs then. Not for their
    push or a pull past its fetch, which nothing of share's push can fail."""
    from memidx.memory.share_fetch import CHECKED, no_fetch_of_theirs

    if no_fetch_of_theirs(config, time.monotonic(), CHECKED):
        return
    if say is not None:
        say("waiting for your git fetch to end (share's push would make it fail)")
    if not no_fetch_of_theirs(config, until, CHECKED):
        raise GitError(
            "a git fetch of yours in this clone ran all the while; share's push would have "
            "made it fail (both write origin/<branch>), so nothing was pushed",
            f"{_kept(renamed)}; run make sync again once it ends",
        )


def _merge_followed(config: Config, here: str, say: Callable[[str], None] | None) -> str:
    """_merge, and the index brought to the HEAD it made before the push (holding `following`
    meanwhile: a search is told the index follows); "" once both are done."""
    from memidx.index.following import following
    from memidx.memory.head_sync import after_commit

    with following(config, at_the_move=True):  # from its move, not through its waits
        why = _merge(config, here)
        if not why:
            after_commit(config, say)  # no hook follows a merge made with plumbing
    return why


def _merge(config: Config, here: str) -> str:
    """Merge what the fetch brought into `here` (refs/heads/<name>), once no git of this
    clone is committing: "" once merged, else why not (trying again may mend it). Made with
    plumbing (memidx.memory.share_move), so nothing of the person's is in its way or touched,
    and a switch meanwhile leaves both branches as they were; with a git older than 2.38,
    by `git merge`, which merges into whatever HEAD names: a switch meanwhile (to a branch
    following the same upstream) stops share before it pushes, else it would push that
    branch under this one's name."""
    from memidx.head_move import about_to_move

    undone = "nothing was merged, pulled or pushed"
    with serialized(config, time.monotonic() + WAIT_SECONDS, "nothing was pulled or pushed"):
        git_dir = _quiet(config)
        _still_on(config, git_dir, here, undone)
        made = merge_upstream(config, git_dir, here, time.monotonic() + WAIT_SECONDS)
        if made is not None:
            return made
        _still_on(config, git_dir, here, undone)  # git merge merges into whatever HEAD names
        began, tip = not merge_in_progress(config), _tip(config, here)
        about_to_move()  # git's merge moves HEAD: `following` held from here
        merged = _git_merge(config, here, began)
        if merged.returncode != 0 and began and merge_in_progress(config):
            _git(config, "merge", "--abort")  # a conflict the look missed (a race): undone
        if merged.returncode != 0:  # undone, wherever HEAD is
            _still_on(config, git_dir, here, undone)
        elif _tip(config, here) == tip:  # else `here` took it before the switch: pushed
            _still_on(config, git_dir, here, lambda: _merged_elsewhere(config, here, tip))
    if merged.returncode == 0:
        return ""
    merge_failed(config, merged)  # raises for what trying again cannot mend
    return _reason(merged)


def _git_merge(config: Config, here: str, began: bool) -> CompletedProcess[str]:
    """git merge of what share's fetch brought; one gpg did not sign in network_timeout (it
    signs under commit.gpgSign: share_git._signed) stopped and undone (git wrote MERGE_HEAD
    before it signs), GitError."""
    from memidx.memory.share_commit import unsigned_in_time

    try:
        return _git(config, "merge", "--no-edit", *_theirs(config, here))  # what was fetched
    except NoAnswer:
        if began and merge_in_progress(config):
            _git(config, "merge", "--abort")
        raise unsigned_in_time(config) from None


def _theirs(config: Config, here: str) -> tuple[str, ...]:
    """git merge's arguments for what share's own fetch brought (share_check.fetched_of), said
    as the upstream: `@{upstream}` merged origin/<name> as a person's long fetch held it, stale
    ("Already up to date"), and each push was refused for 300 s."""
    from memidx.memory.share_check import FETCHED
    from memidx.memory.share_commit import merge_message

    theirs = fetched_of(config, here)
    commit = _tip(config, theirs) if theirs.startswith(FETCHED) else ""
    if not commit:  # share's fetch wrote no ref of its own (a plain fetch): as git pull merges
        return ("@{upstream}",)
    return ("--no-log", "-m", merge_message(config, here, commit), commit)  # its log in it


def _tip(config: Config, branch: str) -> str:
    return _git(config, "rev-parse", "-q", "--verify", branch).stdout.strip()


def _merged_elsewhere(config: Config, here: str, tip: str) -> str:
    """What share's `git merge` did when HEAD was switched as it began: `here` stayed at `tip`,
    so git merged into the branch HEAD names now (its own upstream), which share never pushes."""
    now = _git(config, "symbolic-ref", "-q", "--short", "HEAD").stdout.strip() or "HEAD"
    name = here.removeprefix("refs/heads/")
    return (
        f"nothing was pushed: {name} is as it was ({tip[:12]}), and git merged {now}'s "
        f"upstream into {now}, where HEAD was switched as share's git merge began (undo it "
        f"there if it is unwanted: git reset --merge {now}@{{1}})"
    )


def _still_on(config: Config, git_dir: Path, here: str, undone: str | Callable[[], str]) -> None:
    """Refuse when HEAD no longer names the branch share began on (`undone`: what to say,
    or how to say it, asked only then)."""
    from memidx.git.switched import switched_away

    if _git(config, "symbolic-ref", "-q", "HEAD").stdout.strip() != here:
        raise switched_away(git_dir, here, undone if isinstance(undone, str) else undone())


def _quiet(config: Config) -> Path:
    """Wait until no git of this clone is committing: the merge would move HEAD from
    under it, and the person's commit would fail ("cannot lock ref 'HEAD'")."""
    from memidx.git.commit import WAIT_SECONDS
    from memidx.git.index_wait import wait_until_quiet
    from memidx.git.repo import GitRepo

    git_dir = Path(GitRepo(config.root).run("rev-parse", "--absolute-git-dir").decode().strip())
    undone = "nothing was pulled or pushed"
    wait_until_quiet(config.root, git_dir, undone, time.monotonic() + WAIT_SECONDS)
    return git_dir


def _pause(
    attempt: int, sleep: Callable[[float], None], say: Callable[[str], None] | None, why: str
) -> None:
    if attempt >= ATTEMPTS:
        return
    seconds = random.uniform(FIRST_PAUSE, min(MAX_PAUSE, FIRST_PAUSE * 2**attempt))
    if say is not None:
        say(f"{why}: trying again in {seconds:.1f} s ({attempt}/{ATTEMPTS})")
    sleep(seconds)
