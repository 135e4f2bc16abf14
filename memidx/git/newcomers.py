"""Processes that started since memidx began its look for running gits (Linux /proc).

memidx moves HEAD only once its look at every process found no git of the clone committing
(memidx/git/publish.py), but a `git commit` that started during that look, or between it and
the move, read HEAD before the move and failed at its end ("cannot lock ref 'HEAD': is at X
but expected Y"): a hammer of a person's commits against `remember` lost one in ~3,600. The
kernel's last process id tells whether any process started since: each one that did is looked
at alone (a few, not the ~100 of a full look), as late as possible before the move, until no
new one has started since the last read, so only a git that starts and reads HEAD within the
instant git takes to rename HEAD's lock can still miss it."""

from __future__ import annotations

import os
from pathlib import Path

from memidx.git.invocation import ANY_GIT, command_at, command_of, in_clone, tree_of
from memidx.process_start import PARENT, START, clock_ticks, proc_stat, process_started, uptime

LAST_PID = Path("/proc/sys/kernel/ns_last_pid")  # the last id given out, in this pid namespace
ROUNDS = 16  # reads of the last id, each looking at the processes that started since the last
BURST = 256  # more new ids than this at once: not looked at one by one, taken as an arrival
# git commands that read HEAD when they start and move it from that value when they end
COMMITTING = frozenset({"commit", "merge", "cherry-pick", "revert", "am", "rebase", "pull"})
RECENT = 0.2  # seconds: a process started in the clone this lately may exec `git commit` next
# programs whose fork, before its exec, may be about to run `git commit`: shells, and the
# tools that fork to run a command line (a fork of any other program never execs: a worker)
# fmt: off
SPAWNERS = frozenset({
    "sh", "bash", "dash", "zsh", "ksh", "ksh93", "mksh", "oksh", "pdksh", "yash", "posh", "ash",
    "busybox", "fish", "tcsh", "csh", "make", "gmake", "xargs", "find", "watch", "timeout", "entr",
})
# fmt: on


def last_pid() -> int | None:
    """The last process id the kernel gave out; None where it cannot be read (not Linux)."""
    try:
        return int(LAST_PID.read_text().strip())
    except (OSError, ValueError):
        return None


def arrived(
    root: Path,
    since: int | None,
    commands: frozenset[str] = COMMITTING,
    also: tuple[Path, ...] = (),
) -> bool:
    """Whether a process that started after `since` (last_pid's) may be a git committing in
    the clone at `root`: a git committing there (or naming a clone in its arguments: it has not
    gone there yet), or a fork there not exec'd yet (a shell's child that may exec `git commit`
    next). True too when the ids wrapped or came in a burst, or kept coming (unknown: taken as
    busy); False where the last id cannot be read. `commands`: the git commands waited for;
    `also`: other work trees of the clone, looked at as `root` is."""
    if since is None:
        return False
    tops = (root.resolve(), *(tree.resolve() for tree in also))
    for _ in range(ROUNDS):
        now = last_pid()
        if now is None or now == since:
            return False
        if now < since or now - since > BURST:
            return True
        new = range(since + 1, now + 1)
        if any(_may_commit(Path(f"/proc/{pid}"), tops, commands) for pid in new):
            return True
        since = now
    return True


def lately(root: Path, commands: frozenset[str] = COMMITTING) -> bool:
    """Whether a process that may commit (_may_commit; a git running one of `commands`) started
    in the clone at `root` within the last RECENT seconds (not memidx's own child, the shell
    that moves HEAD, nor one memidx runs under): a shell's child between its fork and its exec
    of `git commit`, which the look for gits took for the shell (Linux /proc; elsewhere False).
    A move passes the commands it waits for: a `git switch` (or `git add`) exec'd since the
    look passed its shell's child was seen here as no committing git, and missed. A git that
    started earlier (its fork: an exec that came late) is judged as the look judges it."""
    now = _ticks_now()
    if now is None:
        return False
    top, me = root.resolve(), str(os.getpid())
    mine, here = {me, *parents(me)}, str(top)
    under, gits = here.rstrip("/") + "/", list[str]()
    for pid in pids():  # raw reads, no Path: under HEAD's lock, ~200 processes
        try:  # the folder first: reading a process's stat costs more (~80 us under load)
            cwd = os.readlink(f"/proc/{pid}/cwd")  # noqa: PTH115 (no Path: ~200 a look)
        except OSError:
            continue  # ended, or another user's
        if not (cwd == here or cwd.startswith(under)):
            continue
        comm, fields = proc_stat(pid)
        if len(fields) <= START:
            continue
        if int(fields[START]) < now - RECENT * clock_ticks():  # an old one: the person's shell, or
            gits += [pid] if _runs_git(pid, comm) else []  # a git the look may have missed
            continue
        proc = Path(f"/proc/{pid}")
        if fields[PARENT] != me and pid not in mine and _may_commit(proc, (top,), commands):
            return True  # a git too: it may have exec'd since the look for gits passed it
    from memidx.git.publish import in_the_way  # publish imports this module

    return bool(gits) and in_the_way(top, commands, gits)


def _runs_git(pid: str, comm: str) -> bool:
    """Whether process `pid` (named `comm`) runs git now, whenever it started: its start is its
    fork's, and a shell's child exec'd `git commit` 0.22 to 0.6 s after its fork in 7 of 400
    forks under a load of ~26 on 2 cores; taken for an old one, it was passed."""
    if comm == "git":
        return True
    try:
        return os.readlink(f"/proc/{pid}/exe").endswith("/git")  # noqa: PTH115 (as above)
    except OSError:
        return False


def pids() -> list[str]:
    """The ids of the running processes (/proc's numbered folders); [] without /proc."""
    try:
        return [name for name in os.listdir("/proc") if name.isdigit()]  # noqa: PTH208
    except OSError:
        return []


def read_proc(path: str) -> bytes:
    """A /proc file's bytes, read raw: Path.read_text's text layer made a look at ~200
    processes cost ~4x its reads (OSError once the process ended, or another user's)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = [os.read(fd, 1 << 16)]
        while chunks[-1]:
            chunks.append(os.read(fd, 1 << 16))
        return b"".join(chunks)
    finally:
        os.close(fd)


def young(pid: str) -> bool:
    """Whether process `pid` started within the last RECENT seconds (False once it ended, and
    for a start read past now, a tick of rounding aside: clock skew or a bad read of /proc is
    no git about to commit, and taken for one, a remember waited its whole bound for it)."""
    now = _ticks_now()
    if now is None:
        return False
    started = process_started(pid)
    return started is not None and now - RECENT * clock_ticks() <= int(started) <= now + 1


def _ticks_now() -> float | None:
    """The boot clock now, in /proc's start ticks; None where there is none (not Linux). The
    boot clock itself, not /proc/uptime: a container's lxcfs puts the container's uptime there
    while /proc's starts stay the host's, and every process read as started within RECENT."""
    since_boot = uptime()
    return None if since_boot is None else since_boot * clock_ticks()


def parents(pid: str) -> list[str]:
    """The pids of the processes process `pid` runs under, its parent first (not init)."""
    found: list[str] = []
    for _ in range(64):  # a chain of parents, never a loop
        fields = proc_stat(pid)[1]
        if len(fields) <= PARENT or fields[PARENT] in ("0", "1") or fields[PARENT] in found:
            return found
        pid = fields[PARENT]
        found.append(pid)
    return found


def _may_commit(proc: Path, tops: tuple[Path, ...], commands: frozenset[str] = COMMITTING) -> bool:
    """Whether process `proc` (its /proc folder) may be a git committing in the clone: a git
    committing there (or naming a clone: not gone there yet), or a fork there that has not
    exec'd yet (a shell's child that may exec `git commit` next). One that exec'd another
    program (an editor's `sleep`, a build's compiler, a prompt's helper) is no git: waiting
    for each one that started left every `remember` pending beside a `git status` loop."""
    try:  # the cheap reads first: most processes are neither git nor in the clone
        name = (proc / "comm").read_text().strip()
        cwd = (proc / "cwd").readlink()
        here = any(cwd == top or top in cwd.parents for top in tops)
        if name != "git" and not here:
            return False
        status = _status(proc)
        if status.get("Tgid", proc.name) != proc.name:
            return False  # a thread of a process that was there for the look
        line = (proc / "cmdline").read_bytes()
        # in its exec of git, a process keeps the comm of the one that forked it (a shell's,
        # python's) a moment: git by its program (9 of 10 `git lg` seen as they started)
        if name != "git" and (proc / "exe").readlink().name != "git":
            return _unexeced(proc, status.get("PPid", "0"), line)
        environ = (proc / "environ").read_bytes()  # GIT_DIR: the clone it works in
    except OSError:
        return False  # ended, another user's, or a zombie
    if not line:
        return here  # git in its exec, its arguments not there yet: careful
    argv = line.split(b"\0")
    words = [arg.decode("utf-8", "replace") for arg in argv[1:]]
    if not in_clone(cwd, words, environ, tops):  # --git-dir, -C: where it is going
        return False
    command = command_of(argv, tree_of(cwd, tops), environ, proc.name)  # `git ci`: its alias
    return command in commands or command in ANY_GIT  # each: any git


def _status(proc: Path) -> dict[str, str]:
    """Tgid and PPid of /proc/<pid>/status (the lines before them: not the ~50 after)."""
    found: dict[str, str] = {}
    for line in (proc / "status").read_text(errors="replace").splitlines():
        key, _, value = line.partition(":")
        if key in ("Tgid", "PPid"):
            found[key] = value.strip()
            if len(found) == 2:
                break
    return found


def _unexeced(proc: Path, parent: str, argv: bytes) -> bool:
    """Whether `proc` (command line `argv`) runs its parent's program and command line still:
    forked, not exec'd yet (OSError once `proc` is gone; False when its parent cannot be read:
    another user's). Not `bash x.sh` under an interactive bash: the command lines differ. Nor
    a fork that forked a child of its own: a subshell running its commands (`$(git log | wc
    -l)` in a script's loop, `( make; true )`), not a child about to exec `git commit`; taken
    for one, a script that ran them in the clone left remembers waiting 4 s (median). Only a
    shell's fork (or make's, xargs'...: SPAWNERS) is one: a Python script in the clone forking
    a worker every 50 ms (multiprocessing's fork, a preforking server) left 3 of 3 remembers
    waiting 4 to 12 s, two of them pending ("HEAD kept moving"). Other programs run git with
    posix_spawn or vfork (Python's subprocess, Go's os/exec) or fork and exec at once (node's
    libuv: a plain fork, its child in this state for an instant)."""
    program = (proc / "exe").readlink()
    if program.name not in SPAWNERS:
        return False  # a Python worker, a preforking server: forks that never exec
    parent_dir = Path(f"/proc/{parent}")
    try:
        theirs = (parent_dir / "exe").readlink(), (parent_dir / "cmdline").read_bytes()
    except OSError:
        return False
    return (program, argv) == theirs and not _forked(proc)


def _forked(proc: Path) -> bool:
    """Whether `proc` has a child process (False where the kernel lists no children)."""
    try:
        return bool((proc / "task" / proc.name / "children").read_bytes().strip())
    except OSError:
        return False


def subcommand(argv: list[bytes]) -> str:
    """The git command of a git command line (`git -c k=v -C dir commit -m x` -> commit), no
    alias expanded (invocation.command_of expands them)."""
    words = [a.decode("utf-8", "replace") for a in argv[1:]]
    at = command_at(words)
    return "" if at is None else words[at]
