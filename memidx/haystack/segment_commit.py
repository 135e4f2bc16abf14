"""`memidx haystack commit`: commit this clone's segments, and close the segment written last
so a committed file is never appended to."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

from memidx.config import Config
from memidx.errors import SwitchedAway
from memidx.haystack.clone_writer import clone_writer
from memidx.haystack.identity import drop_empty_folders
from memidx.haystack.indexing import haystack_folder
from memidx.haystack.own_writers import record_own
from memidx.haystack.purge_foreign import finish_stopped
from memidx.haystack.writer import GITATTRIBUTES, describe_folder
from memidx.index.failures import pull_trace
from memidx.text import counted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memidx.git.repo import GitRepo
    from memidx.haystack.writer import Writer


def commit_haystack(config: Config, notice: Callable[[str], None] | None = None) -> str | None:
    """Commit this clone's segments (and the haystack's .gitattributes), first finishing a
    purge stopped before its commit; the last commit made, None if none was (nothing changed,
    or only git's index entries of the segments, which are set all the same)."""
    from memidx.errors import GitBusy
    from memidx.git.branch import on_a_branch
    from memidx.git.commit import WAIT_SECONDS
    from memidx.git.commit_error import not_committed
    from memidx.git.index_wait import wait_until_quiet
    from memidx.git.repo import GitRepo
    from memidx.head_move import not_moving

    repo = GitRepo(config.root)
    branch = on_a_branch(config.root, "the haystack was not committed")
    folder = haystack_folder(config)
    own = clone_writer(config, notice)  # a copied clone takes its own id before committing
    mine = own.folder
    record_own(config, mine.name)  # an id made before ids were recorded: the clone's own
    # waited for before the writer's lock is taken: a person's `git commit` in its editor,
    # waited for under it, held every agent's filing as long (10 s, an agent's Stop deadline)
    deadline = time.monotonic() + WAIT_SECONDS
    git_dir = Path(repo.run("rev-parse", "--absolute-git-dir").decode().strip())
    attributes = folder / ".gitattributes"  # made with the commit, if missing
    kept = (attributes, folder / ".gitignore", mine)
    named = [p for p in kept if p.exists() or (p == attributes and mine.exists())]
    refs = [p.relative_to(config.root).as_posix() for p in named]
    status = ("status", "--porcelain", "--untracked-files=all", "--", *refs)
    made = mine.exists() and not attributes.exists()
    if refs and (made or repo.run(*status).strip()):  # nothing to commit waits for no git
        wait_until_quiet(config.root, git_dir, not_committed(refs), deadline)
    # a git begun between that wait and the commit below was waited for holding the lock
    # (6.2 s): the commit under it waits for none, lets go of it, and waits without it
    purged: list[str | None] = [None]  # a stopped purge's commit, finished on the way
    busy = 0
    for _ in range(10_000):  # bounded by the deadline, and by three waits for a busy git
        try:
            wait = 0.0 if busy < 2 else max(0.0, deadline - time.monotonic())
            return _commit_locked(config, own, branch, notice, purged=purged, wait=wait)
        except Beaten:  # a person's visit to another branch: committed once HEAD is back
            if purged[-1] is None:  # nothing moved: no `following` held while it waits
                not_moving()
            if not _back_on(git_dir, branch, deadline):  # on `branch` (never on the other)
                raise
            wait_until_quiet(config.root, git_dir, not_committed(refs), deadline)
            continue
        except GitBusy:
            busy += 1
            if busy == 3 or time.monotonic() >= deadline:
                raise
        wait_until_quiet(config.root, git_dir, not_committed(refs), deadline)
    return purged[-1]  # not reached: the last attempt returns or raises


def _commit_locked(
    config: Config,
    own: Writer,
    branch: str,
    notice: Callable[[str], None] | None,
    *,
    purged: list[str | None],
    wait: float,
) -> str | None:
    """The segments' commit under the writer's lock, waiting `wait` s at most for a git."""
    from memidx.errors import GitBusy
    from memidx.git.commit import commit_paths
    from memidx.git.repo import GitRepo

    repo = GitRepo(config.root)
    folder = haystack_folder(config)
    mine = own.folder
    attributes = folder / ".gitattributes"
    with own.locked():  # no record lands between the commit and the closing of its segment
        # before any push of HEAD; on this branch only, as the segments' commit below
        finished = finish_stopped(config, mine.name, notice or _say, branch) or purged[-1]
        purged.append(finished)
        own.settle(_uncommitted(repo, config, mine))
        drop_empty_folders(config, mine.name)
        # committed from memory and written once committed: left untracked while memidx
        # waited for a person's `git pull --rebase`, it failed that pull when the remote's
        # history brought the same file ("untracked working tree files would be overwritten")
        new = mine.exists() and not attributes.exists()
        paths = [
            p
            for p in (attributes, folder / ".gitignore", mine)
            if p.exists() or (new and p == attributes)
        ]
        refs = [p.relative_to(config.root).as_posix() for p in paths]
        status = ("status", "--porcelain", "--untracked-files=all", "--", *refs)
        # missing, its commit is made even when git sees nothing to do: a .gitattributes
        # deleted and its deletion committed came back only with the next new segments
        if not refs or (not new and not repo.run(*status).strip()):
            return finished
        count = sum(1 for _ in Path(mine).glob("*.krd")) if mine.exists() else 0
        before = repo.head()
        subject = f"haystack: segments of {mine.name} ({counted(count, 'file')})"
        written = {refs[0]: GITATTRIBUTES.encode()} if new else None
        # never built again on another branch a `git switch` took HEAD to meanwhile
        try:
            commit = commit_paths(config, refs, subject, wait=wait, branch=branch, written=written,
                                  unhelped=pull_trace(config))  # fmt: skip
        except SwitchedAway as away:  # a person's `git switch` beat the move: nothing moved
            raise Beaten(away.message, away.hint) from None
        except GitBusy:  # a late git after the move (StillUnderWay): the try again finds
            if landed := _landed(repo, before, subject):  # nothing to commit, and said
                purged.append(landed)  # "nothing to commit in the haystack" of this one
                own.close()
            raise
        finally:  # once HEAD holds it (a git that came late may still fail the commit after)
            if (
                new
                and _held(repo, "ls-tree", "--name-only", "HEAD", refs[0])
                and _held(repo, "ls-files", "--cached", refs[0])
            ):  # and git's index: a person's `git switch side` that took it out of the work
                # tree and the index, its HEAD not written yet, found it written again and
                # untracked there, and every switch back failed on it ("untracked working tree
                # files would be overwritten by checkout", chaos.py seed 5: never converged)
                describe_folder(folder, durable=config.fsync)
        own.close()  # the next record starts a new segment: committed files stay as committed
        # HEAD already held these bytes (only git's index entries were mended): no commit made
        return finished if commit == before else commit


def _back_on(git_dir: Path, branch: str, deadline: float) -> bool:
    """Whether HEAD names `branch` again by `deadline` (a `git switch` back), looked at every
    0.1 s."""
    from memidx.git.publish import head_names

    for _ in range(10_000):  # bounded by the deadline
        if head_names(git_dir) == branch:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)
    return False


class Beaten(SwitchedAway):
    """The segments' own commit found HEAD on another branch than the one it began on (a
    `git switch` landed while it waited): nothing was committed, the segments went along
    (untracked), and come back with a switch back."""


def _held(repo: GitRepo, *args: str) -> bool:
    """Whether git lists the path the command `args` names (its last argument)."""
    return bool(repo.run(*args[:-1], "--", args[-1], check=False).strip())


def _landed(repo: GitRepo, before: str | None, subject: str) -> str | None:
    """The commit `subject` names that HEAD took since `before`, if one did."""
    since = "HEAD" if before is None else f"{before}..HEAD"
    found = repo.run("rev-list", "-1", "-F", f"--grep={subject}", since, check=False)
    return found.decode().strip() or None


def _say(text: str) -> None:
    print(f"memidx: notice: {text}", file=sys.stderr)


def _uncommitted(repo: GitRepo, config: Config, mine: Path) -> list[Path]:
    """The segments of this writer's folder that HEAD does not hold: untracked, or staged
    (`git add`) and never committed. No commit holds them, so a torn tail goes aside."""
    if not mine.is_dir():
        return []
    ref = mine.relative_to(config.root).as_posix()
    names: set[str] = set()
    for listing in (("--others",), ("--cached",)):
        out = repo.run("ls-files", "-z", *listing, "--", f"{ref}/", check=False)
        names.update(name for name in out.decode("utf-8", "replace").split("\0") if name)
    head = repo.head()
    if head is not None:
        out = repo.run("ls-tree", "-r", "-z", "--name-only", head, "--", f"{ref}/", check=False)
        names -= set(out.decode("utf-8", "replace").split("\0"))
    return [config.root / name for name in sorted(names) if name.endswith(".krd")]
