"""Commit files memidx wrote (a remembered note, haystack segments) with git plumbing, so the
user's work tree is never touched and no hook stashes it.

The commit is built in a temporary index (`read-tree HEAD`, `add` of exactly these paths,
`write-tree`, `commit-tree`) and published by moving HEAD from the commit it was built on
(memidx/git/publish.py: never while a person's `git commit` holds the index, whose HEAD it would
move from under it); when HEAD moved meanwhile it is built again on the new HEAD. memidx waits
for another git command for at most WAIT_SECONDS, then says its note was not committed (the
file stays). Only after that is the user's index told about these paths (`reset -q -- paths`,
the same as `git add` of what was committed; each a literal pathspec, never a pattern), so
whatever else the user had staged or edited stays as it was. Commands run by name, as GitPython's
command wrapper ran them (memidx/git/plumbing.py: without GitPython's import), one memidx commit
at a time per clone. `publish` is the one way memidx moves HEAD to a commit it built (the
purge's, share's merge: git/rewrite.py)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from memidx.config import Config
from memidx.errors import ChangedSince, GitError
from memidx.git.commit_error import commit_error, not_committed
from memidx.git.commit_lock import serialized
from memidx.git.head_lock import not_moved, refuse_a_left_head_lock
from memidx.git.index_follow import follow
from memidx.git.index_refresh import reset_words, stat_given
from memidx.git.index_wait import pause, wait_for_index
from memidx.git.late import settle
from memidx.git.late_pull import put_back_for_a_pull, said_of_a_removal
from memidx.git.publish import committers
from memidx.git.quoted import pathspec_word
from memidx.git.still_busy import at_a_prompt, still_busy
from memidx.git.switched import refuse_a_switch, switched_away
from memidx.git.temp_index import TEMP_INDEX_PREFIX, remove_stale_temporaries, stage_bytes
from memidx.git.underway import refuse_a_stopped_pick
from memidx.text import display

WAIT_SECONDS = 10.0  # for other git commands (a commit's hooks can take seconds), then give up
UTF8 = "UTF-8"  # a commit so labelled carries no `encoding` header


def commit_paths(
    config: Config,
    paths: Sequence[str],
    subject: str,
    *,
    wait: float | None = None,
    branch: str | None = None,
    written: Mapping[str, bytes] | None = None,
    removed: Mapping[str, bytes | None] | None = None,
    undone: str | None = None,
    on: Mapping[str, str] | None = None,
    unhelped: Callable[[str, str], None] = lambda _, __: None,
) -> str:
    """Commit exactly these paths (files or folders, as they are in the work tree) on HEAD;
    returns the new commit id (HEAD when they change nothing). Nothing but HEAD's branch and
    these paths' index entries changes; no hook runs (the caller checks and syncs in-process);
    GitBusy when another git holds the clone for all of `wait` seconds (WAIT_SECONDS), or when
    HEAD names another branch than `branch` (refs/heads/<name>, when given) at the move (or
    when they change nothing there: not committed on `branch`).
    `written`: paths of `paths` committed with these bytes, not read from the work tree (the
    caller writes the file once it is committed: untracked meanwhile, it failed a `git pull`
    that brought the same file). `removed`: paths of `paths` committed as deleted, each with the
    bytes the caller judged (None: no file); their files leave with the move, only while they
    still hold exactly those bytes (an edit since is the person's: left, untracked; deleted
    before, a pull's autostash took the deletion and gave it back after a failed commit). Each
    error ends in `undone` (`x.md was not committed`). `on`: blobs the HEAD built on must hold
    at these paths, else ChangedSince (a person's commit of them since the caller's look).
    `unhelped` hears the line for `memidx status` of a late pull HEAD was not put back for
    (memidx.git.late_pull: it may fail, and git's own advice would lose the person's work)."""
    from memidx.git.plumbing import Plumbing

    repo: Any = Plumbing(config.root)
    git_dir = Path(str(repo.git_dir))
    root = Path(str(repo.working_tree_dir))
    undone = undone or not_committed(paths)
    deadline = time.monotonic() + (WAIT_SECONDS if wait is None else wait)
    removed = removed or {}
    build = partial(_build, written=written, removed=sorted(removed), undone=undone, on=on)
    made: set[str] = set()  # the commits built: HEAD moved to one of them, or not at all
    moved: list[str] = []  # the ref HEAD named as memidx moved it (a switch since: not that)

    def built(head: str | None) -> str:
        if (new := build(repo, git_dir, head, paths, subject)) != head:
            made.add(new)
        return new

    with serialized(config, deadline, undone):
        refuse_a_stopped_pick(git_dir, undone)
        wait_for_index(git_dir / "index.lock", root, undone, deadline)
        commit = publish(
            root, git_dir, built,
            lambda: _head(repo), f"memidx: {subject}", undone=undone, deadline=deadline,
            then=index_follows(paths, sorted(written or ()), sorted(removed)), branch=branch,
            ready=index_follows(paths), files=sorted(written or ()), gone=removed,  # a rename
            moved=moved,
        )  # fmt: skip
        if late := committers(root):  # one that started at the move may have read the clone
            if removed and commit in made and moved:  # never put back: said, if a pull
                said_of_a_removal(root, late, commit, paths, ref=moved[0],
                                  unhelped=unhelped)  # fmt: skip
            elif commit in made and moved:  # a pull before its merge: HEAD put back
                # (GitBusy), else it fails; nothing built, nothing moved: nothing put back
                put_back_for_a_pull(root, late, commit, paths, written=written or {},
                                    literal=literal(paths), ref=moved[0],
                                    unhelped=unhelped)  # fmt: skip
            settle(repo, late, commit, paths, deadline)  # before it: it ends, HEAD holds them
        # again, here: the child's reset gives up on a held lock (on `branch` alone: follow)
        what, them = ", ".join(map(display, paths)), "it" if len(paths) == 1 else "them"
        gone = bool(removed) or not all((root / path).exists() for path in paths)  # forget
        again = "again, to come back with your next commit" if gone else "for deletion"
        done, shows = f"committed {what} as {commit[:12]}", f"{them} as staged {again}"
        follow(repo, root, paths, commit, branch=branch, deadline=deadline, done=done, shows=shows)
        stat_given(root, git_dir, literal([path for path in written or () if path in paths]))
    return commit


def index_follows(
    paths: Sequence[str], written: Sequence[str] = (), removed: Sequence[str] = ()
) -> Callable[[str], Sequence[str]]:
    """What `publish` runs with the move: the index takes the new blobs at exactly `paths`
    (nothing without paths: a reset without them would reset the whole index). With paths
    `written` from memory (in no work tree yet), the work tree takes them too (a checkout of
    them, hooks off): a memidx killed right after the move leaves no committed file missing.
    With paths `removed`, the index takes `paths` as the commit has them (a reset: a `restore
    --staged` failed on a path neither the index nor the commit holds, which is where the
    fast path's swap left the move's shell when memidx was killed in it: the shell's follow
    failed, and the folder the deletion emptied stayed, as did a twin's file not yet written),
    and the move's follow deletes their files only while they hold the bytes judged."""
    if not paths:
        return lambda _: ()
    if removed:  # no whole-index refresh (git 2.36 on): index_refresh
        return lambda new: ("-c", "core.hooksPath=/dev/null", *reset_words(new, literal(paths)))
    if written:
        quiet = ("-c", "core.hooksPath=/dev/null", "checkout", "-q")
        return lambda new: (*quiet, new, "--", *literal(paths))
    return lambda new: reset_words(new, literal(paths))


def literal(paths: Sequence[str]) -> list[str]:  # `--dir 'a*'` took in a person's notes/ab/
    return [f":(literal){path}" for path in paths]


def publish(
    root: Path,
    git_dir: Path,
    build: Callable[[str | None], str],
    head_of: Callable[[], str | None],
    message: str,
    *,
    undone: str,
    deadline: float,
    then: Callable[[str], Sequence[str]] = lambda _: (),
    branch: str | None = None,
    back: bool = False,
    ready: Callable[[str], Sequence[str]] = lambda _: (),
    files: Sequence[str] = (),
    gone: Mapping[str, bytes | None] | None = None,
    moved: list[str] | None = None,
) -> str:
    """Build a commit on the current HEAD (`build(head)`) and move HEAD to it once no git
    command holds the index or is committing; built again whenever HEAD moved meanwhile, never
    moved from a HEAD it was not built on. `then(commit)`: git arguments run with the move, in
    the same child process (memidx.git.publish.move_head). GitError saying `undone` when that
    does not happen by `deadline` (HEAD is then as the other git left it); GitBusy at once
    (switched_away) when HEAD names another branch than `branch` (refs/heads/<name>, or
    DETACHED: a person's `git switch` meanwhile: built again on that HEAD, the commit went to
    a branch it was never meant for). `back`: HEAD goes back when `then` fails (Undone).
    `ready`, `files`, `gone`: move_head's, the index brought to the commit before the move.
    `moved`: given the ref HEAD named at the move (refs/heads/<name>, or DETACHED)."""
    from memidx.git.publish import BUSY, DONE, SWITCHED, HookRefused, move_head
    from memidx.head_move import about_to_move

    head = head_of()
    commit = build(head)
    for attempt in range(10_000):  # bounded by the deadline; the count only bounds the loop
        if commit == head:  # nothing to move, if HEAD is on the branch the paths are for
            refuse_a_switch(git_dir, branch, undone)  # else not committed there
            if (now := head_of()) == head or time.monotonic() > deadline:
                refuse_a_switch(git_dir, branch, undone, at=head)  # a switch and back
                return commit
            head, commit = now, build(now)  # a commit landed, or a switch and back: anew
            continue
        try:
            about_to_move()  # a `following` lock taken now, not through the waits before
            named: list[str] = []  # what the move moves, read under HEAD's lock
            outcome = move_head(
                root, git_dir, commit, head, message, then=then(commit), branch=branch,
                back=back, ready=ready(commit), files=files, gone=gone, tried=attempt,
                named=named,
            )  # fmt: skip
        except HookRefused as refused:  # the person's hook: no waiting makes it say yes
            raise GitError(f"{refused.message}; {undone}", refused.hint) from None
        if outcome == SWITCHED:
            raise switched_away(git_dir, branch, undone)
        if outcome == DONE or (now := head_of()) == commit:  # or only git's answer was lost
            if moved is not None:
                moved[:] = named  # none when git refused before the look: nothing put back
            return commit
        if time.monotonic() > deadline or (outcome == BUSY and at_a_prompt(root)):
            break  # a `git stash -p` at its prompt waits for a person: not waited for
        if outcome == BUSY and (git_dir / "index.lock").exists():
            wait_for_index(git_dir / "index.lock", root, undone, deadline)
        elif outcome == BUSY:  # a person's commit is under way: let it move HEAD first
            pause(min(attempt, 2))
        else:  # HEAD moved, or a git holds HEAD's lock: a killed git's is never let go
            refuse_a_left_head_lock(root, git_dir, undone)
            pause(min(attempt, 4))
        if (now := head_of()) != head:  # another commit landed first: build on top of it
            refuse_a_switch(git_dir, branch, undone)  # built there, it would land there
            head, commit = now, build(now)
    still_busy(root, git_dir, undone)
    raise not_moved(root, git_dir, undone)


def _build(
    repo: Any,
    git_dir: Path,
    head: str | None,
    paths: Sequence[str],
    subject: str,
    *,
    written: Mapping[str, bytes] | None = None,
    removed: Sequence[str] = (),
    undone: str | None = None,
    on: Mapping[str, str] | None = None,
) -> str:
    from memidx.git.plumbing import CommandFailed

    for path, blob in (on or {}).items():  # built again on a HEAD a person's commit moved
        held = repo.git.rev_parse("-q", "--verify", f"{head}:{path}", with_exceptions=False)
        if str(held).strip() != blob:
            raise ChangedSince(f"{path} changed since memidx read it; {undone}", "try again")
    remove_stale_temporaries(git_dir)
    temporary = git_dir / f"{TEMP_INDEX_PREFIX}{os.getpid()}.index"
    env = {"GIT_INDEX_FILE": str(temporary)}
    try:
        repo.git.read_tree(head or "--empty", env=env)  # no HEAD yet: an empty tree
        for path, data in (written or {}).items():  # first: git reads the .gitattributes
            stage_bytes(repo, git_dir, path, data, env)  # the work tree lacks from this index
        if removed:  # the work tree's files stay until HEAD holds their deletion
            repo.git.update_index("--force-remove", "--", *removed, env=env)
        if read := [p for p in paths if p not in (written or {}) and p not in removed]:
            repo.git.add("-A", "--", *literal(read), env=env)
        tree = str(repo.git.write_tree(env=env)).strip()
        if head is not None and tree == str(repo.git.rev_parse(f"{head}^{{tree}}")).strip():
            return head  # nothing changed (the same note remembered twice at once): no commit
        parents = ["-p", head] if head else []
        # the subject is UTF-8: under i18n.commitEncoding the commit was labelled otherwise
        utf8 = repo.git(c=f"i18n.commitEncoding={UTF8}")
        return str(utf8.commit_tree(tree, *parents, "-m", subject)).strip()
    except CommandFailed as exc:
        raise commit_error(str(exc.stderr or ""), paths, undone) from exc
    finally:
        temporary.unlink(missing_ok=True)


def update_user_index(
    repo: Any, paths: Sequence[str], commit: str, deadline: float, *, done: str, shows: str
) -> None:
    """Point the user's index entries for these paths at `commit`, waiting for another git's
    index lock until `deadline`; GitError saying `done` and what `git status` `shows` if not."""
    from memidx.git.index_copy import HELD, edit_on_copy

    reset = reset_words(commit, literal(paths))  # its paths' entries then refreshed alone
    for attempt in range(10_000):  # bounded by the deadline (one more try past it)
        status, said = edit_on_copy(Path(repo.working_tree_dir), Path(repo.git_dir), reset)
        if status == 0:
            return
        if status == HELD and time.monotonic() < deadline:
            pause(min(attempt, 4))
            continue
        why = "stayed locked" if status == HELD else f"refused it ({said or f'status {status}'})"
        words = " ".join(pathspec_word(path) for path in paths)
        hint = f"run `git reset -q -- {words}` once the other git command ends"
        raise GitError(f"{done}, but git's index {why}, so `git status` shows {shows}", hint)


def _head(repo: Any) -> str | None:
    from memidx.git.plumbing import CommandFailed

    try:
        return str(repo.git.rev_parse("--verify", "-q", "HEAD^{commit}")).strip() or None
    except CommandFailed:
        return None  # an unborn branch: the first commit
