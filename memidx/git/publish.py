"""Move HEAD to a commit memidx built without failing a person's `git commit` meanwhile.

`git commit` reads HEAD before it takes `.git/index.lock`, runs its hooks (seconds, with the
pre-commit framework), and moves HEAD at the end only if HEAD is still what it read: a commit
that lands in between makes it fail with "cannot lock ref 'HEAD': is at X but expected Y", and
the person's commit is lost. A commit of given paths (`git commit -- file`) holds index.lock
all along; a plain `git commit` lets it go before its hooks and its editor run. So memidx moves
HEAD only while no git process of this clone is committing (on Linux, from /proc: a `git commit`,
`merge`, `cherry-pick`, `revert`, `am`, `rebase` or `pull`) or checking a branch out in its work
tree (in_the_way: `switch`, `checkout`) and none holds index.lock, and it looks again while
it holds the ref's own lock: `git update-ref --stdin` prepares the update (which locks the
ref, and fails when HEAD moved), memidx looks, then the transaction is committed or aborted;
last, memidx looks at each process that started since its look began (newcomers.py), so only
a commit that starts in the instant between that and git's rename of the lock can miss it
(and one that does is waited for once HEAD moved: late.py). The ref stays locked for the
look alone (no `git config` run there: invocation.holding), under the 100 ms another git
waits for a ref lock (core.filesRefLockTimeout): at ~150 processes, load average ~20 on 2
cores, 0.9 ms median, 16-21 ms p90, ~30 ms max (this process waiting for a CPU); read through
pathlib, the same look took 11-19 ms median, 27-31 ms p90, ~49 ms max.

What must follow the move (git's index told about the paths the new commit holds) runs in the
same child process, a shell that runs `git update-ref` and then, when HEAD is the new commit,
that git command: memidx killed between the two (a `kill -9`, a Ctrl-C) left HEAD moved and the
index not, so `git status` showed the committed files as staged for deletion and untracked, and
a person's next `git commit` would have deleted them. The child has a session of its own and
finishes alone; a transaction memidx had not committed is aborted when its input closes."""

from __future__ import annotations

import os
import sys
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from memidx.git import invocation
from memidx.git import move_trace as trace
from memidx.git.any_command import may_run_any
from memidx.git.clone_scope import in_work_tree, only_looks
from memidx.git.head_name import head_names
from memidx.git.head_watch import moved_file, moved_first
from memidx.git.hunk_prompts import PROMPTERS, asks
from memidx.git.index_refresh import shell_words
from memidx.git.index_swap import Gone, Prepared
from memidx.git.invocation import command_of, git_dirs, named_git_dir, tree_of
from memidx.git.move_follow import follow_move
from memidx.git.move_outcome import HOOK_REFUSED, HookRefused, Undone, close, head_at
from memidx.git.move_script import (
    FAILED,
    THEN,
    THEN_OR_BACK,
    index_token,
    let_go,
    move_lines,
    take_index_lock,
)
from memidx.git.newcomers import (
    COMMITTING,
    arrived,
    last_pid,
    lately,
    parents,
    pids,
    read_proc,
)
from memidx.process_start import running_since

MOVED = "moved"  # HEAD is not the commit the new one was built on (or its lock is taken)
BUSY = "busy"  # a git command holds index.lock: wait for it, then build again if HEAD moved
DONE = "done"
SWITCHED = "switched"  # HEAD names another branch than the one the commit is for
ZERO = "0" * 40  # update-ref's "the ref must not exist yet"
DETACHED = "HEAD"  # `branch=` for a commit meant for a detached HEAD: refused on any branch
COPY_AGAIN = 5  # tries whose copy of the index went stale are aborted (BUSY), then copied again


def move_head(
    root: Path,
    git_dir: Path,
    new: str,
    old: str | None,
    message: str,
    *,
    then: Sequence[str] = (),
    branch: str | None = None,
    back: bool = False,
    ready: Sequence[str] = (),
    files: Sequence[str] = (),
    gone: Mapping[str, bytes | None] | None = None,
    tried: int = COPY_AGAIN,
    named: list[str] | None = None,
) -> str:
    """Move HEAD from `old` to `new` unless HEAD moved or a git command holds the index:
    DONE, MOVED or BUSY; SWITCHED when `branch` (refs/heads/<name>, or DETACHED) is given and
    HEAD names another (or none), looked at while git holds HEAD's lock (a `git switch` cannot
    come in between). `then`: git arguments run right after the move in the same child
    process, so they run even if memidx dies in between (POSIX; elsewhere not at all: the
    caller runs them again anyway). `back`: HEAD goes back to `old` when `then` fails (Undone,
    saying git's words), in the same child process. `ready`: git arguments that bring a copy
    of the index to `new` as `then` does, its work tree untouched; run before the move, so that
    memidx holds index.lock only for a rename (`files`: those `then` writes in the work tree,
    written then from `new`; `gone`: the files it deletes, each only while it holds the bytes
    judged) while no git of the person that takes the index runs (memidx.git.index_swap); a
    copy a git of the person's changed the index since is BUSY while `tried` < COPY_AGAIN.
    `named`: given the ref the move moves, read under HEAD's lock (_switched)."""
    from memidx.children import SHELL, start_piped
    from memidx.git.index_swap import discard, prepare

    invocation.prime(root)  # the aliases a look wanted, read before HEAD's lock
    locks = bool(then) and SHELL is not None  # the index, from before the move
    waited = COMMITTING | SWITCHERS | (INDEX_TAKERS if locks else frozenset[str]())
    if in_the_way(root, waited):
        return BUSY
    prepared = prepare(root, git_dir, ready, new, files, gone=gone) if locks and ready else None
    argv = ["git", "update-ref", "-m", message, "--stdin"]
    if locks and SHELL is not None:
        script, was = THEN_OR_BACK if back else THEN, [old or ZERO, str(git_dir)]
        was.append(move_lines(root, gone, files, written_by_then=back) if gone else "")
        argv = [SHELL, "-c", script, "memidx", message, new, *was, sys.executable,
                *shell_words(then)]  # fmt: skip
    outcome, fast = MOVED, False  # HEAD moved, another git holds its lock, or git refused it
    with start_piped(argv, root) as git:
        assert git.stdin is not None and git.stdout is not None  # both are pipes
        token = index_token(git.pid, new)  # the shell's, which lets the lock go
        try:
            git.stdin.write(f"start\nupdate HEAD {new} {old or ZERO}\nprepare\n")
            git.stdin.flush()
            if git.stdout.readline().strip() == "start: ok" and (
                git.stdout.readline().strip() == "prepare: ok"
            ):
                since = last_pid()  # a git that starts during the look is looked at last
                with invocation.holding(root):  # no `git config` run under HEAD's lock
                    switched = _switched(git_dir, branch, named)
                    busy = switched or (git_dir / "index.lock").exists()
                    busy = busy or in_the_way(root, waited) or lately(root, waited)
                    busy = busy or arrived(root, since, waited)
                    watched = moved_file(git_dir) if locks else None  # HEAD's, under its lock
                busy = busy or (locks and not take_index_lock(git_dir, token))  # the shell lets go
                busy, fast = _copy_looked(root, git_dir, (prepared, gone), busy, tried)
                git.stdin.write("abort\n" if busy else "commit\n")
                git.stdin.flush()
                # HEAD moved: its index follows now, not once git's hook ran (head_watch)
                moved = not busy and moved_first(git.stdout, watched, new)
                said = moved or git.stdout.readline().strip() == "commit: ok"
                outcome = SWITCHED if switched else BUSY if busy else DONE if said else MOVED
                if outcome == DONE and locks:  # the shell waits for EOF
                    # not share's merge (`back`): its read-tree -u, done by a memidx then
                    # killed, was done again by the shell from git's index as it was, which
                    # found the merge's files in its way, failed and moved HEAD back over a
                    # half-merged work tree; the shell alone does it once, as before
                    follow_move(root, git_dir, token, (prepared, gone), fast,
                                then=((), ()) if back else (then, files))  # fmt: skip
        except BrokenPipeError:  # git ended: it refused the update
            pass
        finally:
            errors = close(git)
            trace.write(f"{outcome} fast={fast} ready={prepared is not None} tried={tried}")
            if locks:  # the shell ended: a lock it did not let go (killed) is let go here
                let_go(git_dir, token, (root, gone or (), git.pid))
                discard(git_dir)
    if outcome == MOVED and HOOK_REFUSED in errors:
        raise HookRefused(errors)
    if back and FAILED in errors:
        raise Undone(errors, head_at(root) == old)
    return outcome


def _switched(git_dir: Path, branch: str | None, named: list[str] | None) -> bool:
    """Whether HEAD names another ref than `branch` (when given), read while git holds HEAD's
    lock: the ref the move moves (refs/heads/<name>, or DETACHED), `named`'s when given (read
    before the lock, a person's `git checkout -b` between had another moved: late_pull)."""
    at = head_names(git_dir) or DETACHED
    if named is not None:
        named[:] = [at]
    return branch is not None and at != branch


def _copy_looked(
    root: Path, git_dir: Path, copied: tuple[Prepared | None, Gone], busy: bool, tried: int
) -> tuple[bool, bool]:
    """(busy, fast): whether the move is aborted, and whether the READY copy stands for git's
    index (memidx holds index.lock). A stale one ran `then` on git's index under the lock
    (~10-50 ms at a load of ~20, each `git add` of the person's refused): aborted and copied
    again while `tried` < COPY_AGAIN, then as before (an index that kept changing)."""
    from memidx.git.index_swap import usable

    prepared, gone = copied
    fast = not busy and usable(root, git_dir, prepared, gone)
    return busy or (prepared is not None and not fast and tried < COPY_AGAIN), fast


# git commands that check a branch out: its files and git's index from the tip they read first,
# HEAD written last (git worktree add: HEAD first, then the files); a branch moved meanwhile is
# moved under that index (memidx.git.side_commit, memidx.git.branch_move)
SWITCHING = frozenset({"switch", "checkout", "worktree"})
SWITCHERS = SWITCHING - {"worktree"}  # the ones that check a branch out in this work tree
# the other git commands that take `.git/index.lock` and fail at once when memidx holds it
# (merge, commit, stash's `git stash create` in a merge: COMMITTING); waited for by a move that
# takes it (a person's `git add` that started just before the move failed at memidx's lock)
INDEX_TAKERS = frozenset({"add", "rm", "mv", "stash", "reset", "restore", "update-index",
                          "read-tree", "apply", "checkout-index", "sparse-checkout"})  # fmt: skip
# of those, PROMPTERS wait at a person's prompt (`-p`) and write the index only through a
# `git apply --cached` per answer, which reads it then: waited for, a `git add -p` at its
# prompt left every remember pending 10 s ("a git command taking the index ... under way")


def in_the_way(
    root: Path, commands: frozenset[str] = COMMITTING | SWITCHERS, among: Collection[str] = ()
) -> bool:
    """Whether a git of this clone is committing (committing()) or checking a branch out (not
    yet in its post-checkout hook), in one look: a `git switch side` that read HEAD just
    before memidx's move took git's index once memidx let it go, memidx's files staged in it,
    to side (`A notes/x.md`, for the person's next commit there; left so when memidx was
    killed before it took them out). So memidx moves HEAD once it ended (`among`: those only)."""
    found = committers(root, commands, among)
    return any(it.split()[0] not in SWITCHERS or not in_its_hook(pid) for pid, it in found.items())


def in_its_hook(pid: str) -> bool:
    """Whether git `pid` runs its post-checkout hook: git runs it once files, index and HEAD
    are written, so that checkout is done (a person's slow hook, or memidx's own waiting for
    this one's lock, held every side commit of the clone, and every commit's index follow
    (git/index_follow.py), its whole 10 s wait)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return False  # not known: waited for
    for child in children:
        try:  # the hook itself, or `/bin/sh <hook>` for a script
            argv = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")[:2]
        except OSError:
            continue
        if any(Path(arg.decode("utf-8", "replace")).name == "post-checkout" for arg in argv):
            return True
    return False


def committing(root: Path) -> bool:
    """Whether a git process in this clone is committing (Linux /proc; elsewhere never). A git
    that memidx runs under (memidx in its hook) waits for memidx: it is not waited for."""
    return bool(committers(root))


def committers(
    root: Path,
    commands: frozenset[str] = COMMITTING,
    among: Collection[str] = (),
    *,
    also: Sequence[Path] = (),
) -> dict[str, str]:
    """The git processes of this clone that are committing (running one of `commands`), as
    committing() finds them: their pid -> `<git command> <start time>` (the start tells a pid
    used again from the same). `also`: other work trees looked in, in the same look at /proc
    (a look per work tree cost a side commit ~6 ms per work tree); `among`: those pids only."""
    found: dict[str, str] = {}
    if not Path("/proc/self").is_dir():
        return found
    roots = [root.resolve(), *(tree.resolve() for tree in also)]
    mine, dirs = _ancestors(), git_dirs(roots)
    for pid in among or pids():  # raw reads, no Path: under HEAD's lock, for ~200 processes
        if pid in mine:
            continue
        try:
            if read_proc(f"/proc/{pid}/comm") != b"git\n":
                continue
            argv = read_proc(f"/proc/{pid}/cmdline").split(b"\0")
            cwd = Path(os.readlink(f"/proc/{pid}/cwd"))  # noqa: PTH115 (no Path: ~200 a look)
            environ = read_proc(f"/proc/{pid}/environ")
        except OSError:
            continue  # another user's process, or one that just ended
        words = [arg.decode("utf-8", "replace") for arg in argv[1:]]
        named = named_git_dir(words, cwd, environ)  # --git-dir or GIT_DIR: that repository's
        here = not dirs.isdisjoint(named) if named else any(in_work_tree(cwd, r) for r in roots)
        command = command_of(argv, tree_of(cwd, roots), environ, pid) if here else ""  # `git ci`
        # an alias running a shell may run any git: waited for until its shell started it
        # (a git the shell runs is found on its own; `!git log | less` is not waited for)
        after = words[words.index(command) + 1 :] if command in words else words  # an alias
        if (command in PROMPTERS and asks(command, after)) or only_looks(command, words):
            continue  # `git add -p` at its prompt: each hunk's own git takes the index
        if command in commands or may_run_any(command, pid):  # and a `git comit` corrected
            found[pid] = f"{command} {started(pid)}"
    return found


def started(pid: str) -> str:
    """When process `pid` started (clock ticks since boot); "" once it ended (a zombie too)."""
    return running_since(pid)


def _ancestors() -> set[str]:
    """The pids of this process and of the processes it runs under."""
    me = str(os.getpid())
    return {me, *parents(me)}
