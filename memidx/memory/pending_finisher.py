"""The finisher a `remember` starts when it leaves a note pending: a detached process (a
session of its own, no input, its output to `.memidx/pending-notes/finisher.log`) that waits
for the person's git command to let go of the clone, then commits the pending notes as a
post-* git hook does.

A command that ends with no post-* hook (a commit refused by pre-commit or commit-msg, one
aborted with an empty message, a git killed) left the note pending until the next `remember`,
`memidx sync` or `memidx share`, days later maybe. The finisher looks every POLL seconds, for
LIMIT seconds at most, and commits only while no git of the clone is under way (its index
lock, a commit seen in /proc, a rebase, merge, cherry-pick, revert or bisect): with git's
plumbing, as `remember` does, so the person's staged work is never committed. It takes
remember.lock as the hooks and `remember` do, so each note is committed once. One finisher
looks at a time per clone (finisher.lock), one more waits for it (finisher-next.lock), and
any other ends at once. Where /proc cannot tell a person's `git commit` under way (not
Linux), none is started.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from memidx.config import Config

LIMIT = 600.0  # seconds a finisher waits for git at most, then leaves the notes pending
POLL = 0.5  # seconds between two looks at the clone
LOG = "finisher.log"  # in .memidx/pending-notes/
LOG_SIZE = 64 * 1024  # bytes past which it becomes finisher.log.1 (the one before goes)
FINISHER_LOCK = "finisher.lock"  # in .memidx/pending-notes/: one finisher at a time
NEXT_LOCK = "finisher-next.lock"  # held by the one finisher waiting for finisher.lock


def start_finisher(config: Config, notice: Callable[[str], None]) -> None:
    """Start the finisher for the notes pending in this clone, detached; one that cannot start
    is a warning line (the hooks, the next `remember` or `memidx sync` commit them still)."""
    from memidx.git.process import spawn_detached  # reaped by a process that lives on (MCP)
    from memidx.memory.pending_mark import FOLDER

    if not Path("/proc/self").is_dir():
        return  # no way to see a person's `git commit` under way: it could fail theirs
    argv = [sys.executable, "-m", "memidx.memory.pending_finisher", str(config.root)]
    log = config.state_dir / FOLDER / LOG
    with contextlib.suppress(OSError):  # another remember rotated it first: appended to then
        if log.is_file() and log.stat().st_size > LOG_SIZE:  # it grew with each finisher
            log.replace(log.with_name(f"{LOG}.1"))  # a finisher still writing goes on there
    try:
        log.parent.mkdir(parents=True, exist_ok=True)  # the entries are kept in the git folder
        spawn_detached(argv, log)
    except OSError as exc:  # no process left under a limit, a full disk
        notice(f"warning: nothing could be started to commit it once git lets go: {exc}")


def finish_when_git_lets_go(
    config: Config, say: Callable[[str], None], limit: float = LIMIT
) -> bool:
    """Wait (`limit` seconds at most) until no git of the clone is under way, then commit the
    pending notes; True when none is left pending for the branch checked out. One finisher
    looks at a time, one more waits for it (it sees every note kept before it looks), and any
    other ends at once: one started by each remember behind a long git piled up, 11 MB each."""
    from contextlib import ExitStack

    from memidx.memory.pending_mark import FOLDER, any_pending
    from memidx.portable import file_lock

    folder = config.state_dir / FOLDER
    with ExitStack() as in_line:
        if not in_line.enter_context(file_lock(folder / NEXT_LOCK, wait=False)):
            return True  # the one waiting looks after this note was kept: it commits it
        for _ in range(int(limit / POLL) + 20):  # the running one's limit, and its last look
            if not any_pending(config):
                return True  # committed meanwhile, or the clone deleted: nothing to commit
            with file_lock(folder / FINISHER_LOCK, wait=False) as taken:
                if taken:
                    in_line.close()  # a later note's finisher may wait now
                    return _look(config, say, limit)
            time.sleep(POLL)
    say(f"another finisher of this clone ran for {limit:g} s; this one ended (`memidx sync`)")
    return False


def _look(config: Config, say: Callable[[str], None], limit: float) -> bool:
    """Look every POLL seconds, for `limit` seconds at most, and commit once git lets go."""
    from memidx.memory.pending_mark import any_pending

    deadline = time.monotonic() + limit
    for _ in range(int(limit / POLL) + 2):  # bounded by the deadline too
        if not any_pending(config):
            return True
        if _quiet(config) and _finish(config, say):
            return True  # the rest waits for a branch checked out (or for another work tree's)
        if time.monotonic() >= deadline:
            break
        time.sleep(POLL)
    say(f"the pending notes were not committed within {limit:g} s (`memidx sync` commits them)")
    return False


def _quiet(config: Config) -> bool:
    from memidx.git.underway import busy_with

    return busy_with(config.root) is None


def _finish(config: Config, say: Callable[[str], None]) -> bool:
    """Commit the pending notes as a post-* hook does, then index them; False when a
    `remember` holds remember.lock (it commits them itself) or git came back meanwhile."""
    from contextlib import ExitStack

    from memidx.git.refs import read_head
    from memidx.index.following import following
    from memidx.memory.head_sync import sync_to_head
    from memidx.memory.pending_notes import HOOK_LOCK_WAIT, HOOK_WAIT, LOCK, commit_pending
    from memidx.portable import file_lock

    with ExitStack() as moving:
        with file_lock(config.state_dir / LOCK, timeout=HOOK_LOCK_WAIT) as taken:
            if not taken:  # waited for outside `following`: a search meanwhile says the truth
                return False
            moving.enter_context(following(config, at_the_move=True))  # at HEAD's move
            head = read_head(config.root)
            done = commit_pending(config, HOOK_WAIT, say, only_commit=True)
        for ref, commit in done.commits.items():
            say(f"committed {ref}, remembered while git was busy, as {commit[:12]}")
        # a commit that moved HEAD, then failed (git's index held past the wait), counts none:
        # unfollowed, a person's commit next was refused as drift (no hook follows plumbing)
        if done.commits or read_head(config.root) != head:
            for line in sync_to_head(config):
                say(line)
    return done.busy is None


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m memidx.memory.pending_finisher ROOT`, as `remember` starts it."""
    from memidx.config import load_config
    from memidx.errors import MemidxError

    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m memidx.memory.pending_finisher ROOT", file=sys.stderr)
        return 2

    def say(line: str) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        print(f"{stamp} memidx: {line}", flush=True)

    try:
        return 0 if finish_when_git_lets_go(load_config(Path(args[0])), say) else 1
    except MemidxError as exc:
        say(f"the pending notes were not committed: {exc}")
    except Exception as exc:  # noqa: BLE001 - no one to see a traceback: its log says it
        say(f"the pending notes were not committed: {type(exc).__name__}: {exc}")
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
