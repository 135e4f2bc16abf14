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
that git command: memidx killed between the two (a `kill -9`, a Ctrl-C) left HEAD moved and
the index not, so `git status` showed the committed files as staged for deletion and
untracked, and a person's next `git commit` would have deleted them. The child has a session
of its own and finishes alone; a transaction memidx had not committed is aborted when its
input closes."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from memidx.errors import GitError
from memidx.git import invocation
from memidx.git.invocation import SHELL_ALIAS, command_of, git_dirs, named_git_dir, tree_of
from memidx.git.move_script import (
    FAILED,
    THEN,
    THEN_OR_BACK,
    copy_index,
    index_token,
    let_go,
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
    young,
)

MOVED = "moved"  # HEAD is not the commit the new one was built on (or its lock is taken)
BUSY = "busy"  # a git command holds index.lock: wait for it, then build again if HEAD moved
DONE = "done"
SWITCHED = "switched"  # HEAD names another branch than the one the commit is for
ZERO = "0" * 40  # update-ref's "the ref must not exist yet"
DETACHED = "HEAD"  # `branch=` for a commit meant for a detached HEAD: refused on any branch
REFTABLE_STUB = "refs/heads/.invalid"  # what a reftable clone's HEAD file says, for older gits
HOOK_REFUSED = "aborted by hook"  # git's words when a reference-transaction hook says no


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
) -> str:
    """Move HEAD from `old` to `new` unless HEAD moved or a git command holds the index:
    DONE, MOVED or BUSY; SWITCHED when `branch` (refs/heads/<name>, or DETACHED) is given and
    HEAD names another (or none), looked at while git holds HEAD's lock (a `git switch` cannot
    come in between).
    `then`: git arguments run right after the move in the same child process, so they run
    even if memidx dies in between (POSIX; elsewhere not at all: the caller runs them again
    anyway). `back`: HEAD goes back to `old` when `then` fails (Undone, saying git's
    words), in the same child process."""
    from memidx.children import SHELL, start_piped

    invocation.prime(root)  # the aliases a look wanted, read before HEAD's lock
    if in_the_way(root):
        return BUSY
    argv = ["git", "update-ref", "-m", message, "--stdin"]
    locks = bool(then) and SHELL is not None  # the index, from before the move
    if locks and SHELL is not None:
        script, was = THEN_OR_BACK if back else THEN, [old or ZERO, str(git_dir)]
        argv = [SHELL, "-c", script, "memidx", message, new, *was, *then]
    outcome = MOVED  # HEAD moved, another git holds its lock, or git refused the update
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
                    switched = branch is not None and (head_names(git_dir) or DETACHED) != branch
                    busy = switched or (git_dir / "index.lock").exists() or in_the_way(root)
                    busy = busy or lately(root) or arrived(root, since, COMMITTING | SWITCHERS)
                busy = busy or (locks and not take_index_lock(git_dir, token))  # the shell lets go
                git.stdin.write("abort\n" if busy else "commit\n")
                git.stdin.flush()
                said = git.stdout.readline().strip()
                outcome = DONE if said == "commit: ok" else MOVED
                outcome = SWITCHED if switched else BUSY if busy else outcome
                if outcome == DONE and locks:  # HEAD's lock let go; the shell waits for EOF
                    copy_index(git_dir)
        except BrokenPipeError:  # git ended: it refused the update
            pass
        finally:
            errors = _close(git)
            if locks:  # the shell ended: a lock it did not let go (killed) is let go here
                let_go(git_dir, token)
    if outcome == MOVED and HOOK_REFUSED in errors:
        raise HookRefused(errors)
    if back and FAILED in errors:
        raise Undone(errors, _head(root) == old)
    return outcome


def _head(root: Path) -> str:
    argv = ["git", "rev-parse", "-q", "--verify", "HEAD"]
    found = subprocess.run(argv, cwd=root, capture_output=True, check=False)
    return found.stdout.decode(errors="replace").strip()


def head_names(git_dir: Path) -> str | None:
    """The branch HEAD names (`refs/heads/<name>`), read from its file; None when detached.
    Git tells it where the file does not: a reftable clone's names no branch (REFTABLE_STUB,
    for older gits), and with core.preferSymlinkRefs it is a link to the branch's own file
    (read through, a commit id): every remember, forget and haystack commit there was
    refused as if the person had switched branch."""
    head = git_dir / "HEAD"
    try:
        text = "" if head.is_symlink() else head.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    text = text.strip()
    named = text.removeprefix("ref:").strip() if text.startswith("ref:") else None
    if text and named != REFTABLE_STUB:
        return named
    argv = ["git", f"--git-dir={git_dir}", "symbolic-ref", "-q", "HEAD"]
    found = subprocess.run(argv, capture_output=True, check=False)
    return found.stdout.decode(errors="replace").strip() or None


class HookRefused(GitError):
    """The clone's reference-transaction hook refused to move HEAD."""

    def __init__(self, errors: str) -> None:
        said = [line for line in errors.splitlines() if line.strip() and HOOK_REFUSED not in line]
        super().__init__(
            "the clone's reference-transaction hook refused to move HEAD"
            + (f" (it said: {said[0].strip()})" if said else ""),
            "fix that hook (git rev-parse --git-path hooks/reference-transaction), then try again",
        )


class Undone(GitError):
    """The git command run with the move failed (move_head's `back`); `back`: HEAD went back
    (else another git moved it meanwhile)."""

    def __init__(self, errors: str, back: bool) -> None:
        said = [line.strip() for line in errors.splitlines() if line.strip()]
        self.back = back
        super().__init__(said[0] if said else "git failed after the move", "try again")


def _close(git: subprocess.Popen[str]) -> str:
    """End git's input (an uncommitted transaction ends with it) and reap git; what it wrote
    to its error stream."""
    try:
        return git.communicate()[1] or ""
    except BrokenPipeError:  # it had ended already
        git.wait()
        return git.stderr.read() if git.stderr is not None else ""


# git commands that check a branch out: its files and git's index from the tip they read first,
# HEAD written last (git worktree add: HEAD first, then the files); a branch moved meanwhile is
# moved under that index (memidx.git.side_commit, memidx.git.branch_move)
SWITCHING = frozenset({"switch", "checkout", "worktree"})
SWITCHERS = SWITCHING - {"worktree"}  # the ones that check a branch out in this work tree


def in_the_way(root: Path) -> bool:
    """Whether a git of this clone is committing (committing()) or checking a branch out (not
    yet in its post-checkout hook), in one look: a `git switch side` that read HEAD just
    before memidx's move took git's index once memidx let it go, memidx's files staged in it,
    to side (`A notes/x.md`, for the person's next commit there; left so when memidx was
    killed before it took them out). So memidx moves HEAD once it ended."""
    found = committers(root, COMMITTING | SWITCHERS)
    return any(it.split()[0] in COMMITTING or not in_its_hook(pid) for pid, it in found.items())


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
    root: Path, commands: frozenset[str] = COMMITTING, *, also: Sequence[Path] = ()
) -> dict[str, str]:
    """The git processes of this clone that are committing (running one of `commands`), as
    committing() finds them: their pid -> `<git command> <start time>` (the start tells a pid
    used again from the same). `also`: other work trees looked in, in the same look at /proc
    (one look per work tree cost a side commit ~6 ms per work tree of the clone)."""
    found: dict[str, str] = {}
    proc = Path("/proc")
    if not (proc / "self").is_dir():
        return found
    roots = [root.resolve(), *(tree.resolve() for tree in also)]
    mine, dirs = _ancestors(), git_dirs(roots)
    for pid in pids():  # raw reads, no Path: under HEAD's lock, for ~200 processes
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
        here = not dirs.isdisjoint(named) if named else any(_in(cwd, root) for root in roots)
        command = command_of(argv, tree_of(cwd, roots), environ) if here else ""  # `git ci`
        # an alias running a shell may run any git: waited for until its shell started it
        # (a git the shell runs is found on its own; `!git log | less` is not waited for)
        if command in commands or (command == SHELL_ALIAS and young(pid)):
            found[pid] = f"{command} {started(pid)}"
    return found


def _in(cwd: Path, root: Path) -> bool:
    """Whether `cwd` is in the work tree `root` (not in a repository of its own inside it)."""
    return (cwd == root or root in cwd.parents) and not _another_repository(cwd, root)


def started(pid: str) -> str:
    """When process `pid` started (clock ticks since boot, from /proc); "" once it ended (a
    zombie, which its parent has not reaped yet, has ended too)."""
    try:  # "pid (comm) state ppid ...": the 22nd field, the 20th after the comm
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return ""
    return fields[19] if len(fields) > 19 and fields[0] not in ("Z", "X") else ""


def _another_repository(cwd: Path, root: Path) -> bool:
    """Whether `cwd`, a folder under the clone, is in a repository of its own (a clone kept in
    it, a submodule) before the clone's top: its commits were waited for as the clone's."""
    folder = cwd
    for _ in range(len(cwd.parts)):  # up to the clone's top, never past it
        if folder == root or root not in folder.parents:
            return False
        if (folder / ".git").exists():
            return True
        folder = folder.parent
    return False


def _ancestors() -> set[str]:
    """The pids of this process and of the processes it runs under."""
    me = str(os.getpid())
    return {me, *parents(me)}
