"""Starting processes apart from memidx, the other module (with memidx/portable.py) that calls
operating-system-specific APIs, each with a fallback for Windows: a child with its streams
piped, in a session of its own on POSIX; a detached one (a session of its own, or a process
group with no console); going on in a detached copy of this process (a double fork), or in a
child, leaving the parent. tests/unit/test_portability.py enforces it."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager, suppress

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~2 ms
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Generator, Mapping
    from pathlib import Path
    from typing import BinaryIO

# A POSIX shell to run two git commands as one child process (the second must run even when
# memidx is killed between them); None where there is none to count on.
SHELL: str | None = None if sys.platform == "win32" else "/bin/sh"
# What names the repository, work tree, index and objects git works on (`git rev-parse
# --local-env-vars`, less configuration and replace refs), over the folder it runs in: a git
# hook in a linked work tree of the person's project has that work tree's GIT_DIR and
# GIT_INDEX_FILE, and a memidx it starts commits in its own clone, never in the project.
ELSEWHERE = frozenset({
    "GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_GRAFT_FILE",
    "GIT_SHALLOW_FILE", "GIT_PREFIX", "GIT_INTERNAL_SUPER_PREFIX",
})  # fmt: skip


def for_this_clone(environ: Mapping[str, str]) -> dict[str, str]:
    """`environ` less the variables that name another repository (ELSEWHERE): git finds the
    clone from the folder it runs in (`-C`, its working directory)."""
    return {name: value for name, value in environ.items() if name not in ELSEWHERE}


def start_piped(argv: list[str], cwd: Path) -> subprocess.Popen[str]:
    """Start `argv` in `cwd` with its three streams piped (text), in a session of its own on
    POSIX: the terminal's Ctrl-C, which stops memidx, does not stop it halfway, and it ends
    its work when memidx is killed (a closed input is all it sees). git speaks English, which
    memidx reads ("aborted by hook": under LANGUAGE=de a refusal of the person's
    reference-transaction hook read as HEAD moving, the note left pending); the hooks it runs
    keep the person's locale (GIT_TEXTDOMAINDIR, not a folder: git finds no translation)."""
    import subprocess

    pipe = subprocess.PIPE
    env = {**for_this_clone(os.environ), "GIT_TEXTDOMAINDIR": os.devnull}
    return subprocess.Popen(
        argv, cwd=cwd, stdin=pipe, stdout=pipe, stderr=pipe, text=True, env=env,
        start_new_session=sys.platform != "win32",  # Windows has no sessions
    )  # fmt: skip


def run_in_session(argv: list[str], cwd: Path, errors: BinaryIO) -> int:
    """Run `argv` in `cwd` to its end, its output dropped and its errors to `errors` (a file:
    no pipe that a killed memidx closes under it), in a session of its own on POSIX (memidx
    killed, or the terminal's Ctrl-C, does not stop it halfway): its exit status."""
    import subprocess

    done = subprocess.run(
        argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=errors, check=False,
        env=for_this_clone(os.environ),  # a hook's GIT_DIR named another repository
        start_new_session=sys.platform != "win32",  # Windows has no sessions
    )  # fmt: skip
    return done.returncode


def start_holding(argv: list[str], cwd: Path, env: Mapping[str, str], held: int) -> int:
    """Run `argv` in `cwd` to its end, its output dropped, the open file `held` (and the flock
    on it) inherited by it on POSIX, so that it holds that lock while it runs, memidx killed
    or not (memidx.git.ready_lock); its exit status. Windows: not inherited."""
    import subprocess

    quiet = subprocess.DEVNULL
    passed = (held,) if sys.platform != "win32" else ()
    child = subprocess.Popen(argv, cwd=cwd, env=env, stdout=quiet, stderr=quiet, pass_fds=passed)
    with suppress(OSError):  # its pid, for a person who looks
        os.write(held, str(child.pid).encode())
    return child.wait()


GRACE = 2.0  # seconds a stopped child's process group has to end on SIGTERM before SIGKILL


def run_bounded(
    argv: list[str], cwd: Path, env: Mapping[str, str], seconds: float, given: str | None = None
) -> subprocess.CompletedProcess[str] | None:
    """Run `argv` in `cwd` to its end, its output collected (text), `given` on its input (else
    none: never the terminal's), in a process group of its own with no terminal (a session of
    its own on POSIX), so nothing it starts (ssh) can ask at the terminal. None when it ran
    past `seconds`: it and its process group were stopped, as when this process is stopped
    meanwhile (Ctrl-C: then the exception goes on)."""
    import subprocess

    pipe = subprocess.PIPE
    stdin = pipe if given is not None else subprocess.DEVNULL
    with _stops_raised():
        if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
            group = subprocess.CREATE_NEW_PROCESS_GROUP
            child = subprocess.Popen(
                argv, cwd=cwd, env=env, text=True, stdin=stdin, stdout=pipe, stderr=pipe,
                creationflags=group,
            )  # fmt: skip
        else:
            child = subprocess.Popen(
                argv, cwd=cwd, env=env, text=True, stdin=stdin, stdout=pipe, stderr=pipe,
                start_new_session=True,
            )  # fmt: skip
        try:
            out, err = child.communicate(given, timeout=seconds)
        except subprocess.TimeoutExpired:
            _end_group(child)
            return None
        except BaseException:
            _end_group(child)
            raise
    return subprocess.CompletedProcess(argv, child.returncode, out, err)


class _Signalled(BaseException):
    """A stop signal (SIGTERM, SIGHUP) came while run_bounded waited."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


@contextmanager
def _stops_raised() -> Generator[None]:
    """The stop signals this process leaves at their default, which ends it at once, raised
    as _Signalled in the block instead (in the main thread), so run_bounded ends its child's
    group first; then raised again at their default: this process ends as it would have. A
    share killed so left its git waiting on a silent remote for ever (in a session of its
    own, no hang-up of the terminal reaches it)."""
    import signal
    import threading

    from memidx.portable_signals import stop_signals

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    taken = [number for number in stop_signals() if signal.getsignal(number) == signal.SIG_DFL]

    def raised(number: int, frame: object) -> None:
        raise _Signalled(number)

    for number in taken:
        signal.signal(number, raised)
    try:
        yield
    except _Signalled as stop:
        for number in taken:
            signal.signal(number, signal.SIG_DFL)
        signal.raise_signal(stop.number)
        raise
    finally:
        for number in taken:
            signal.signal(number, signal.SIG_DFL)


def _end_group(child: subprocess.Popen[str]) -> None:
    """End `child` and its process group: SIGTERM first, so a git removes its lock files as it
    goes (one killed outright left `refs/...lock`, and every later fetch failed on it), then
    SIGKILL to what is left after GRACE, the child not reaped until then, so its group's
    number names no other. Its pipes are closed, read or not: a process that left the group
    holding them is not waited for."""
    import signal
    import subprocess
    import time

    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        subprocess.run(
            ["taskkill", "/F", "/T", "/PID", str(child.pid)], capture_output=True, check=False
        )
        child.kill()
    else:
        with suppress(OSError):
            os.killpg(child.pid, signal.SIGTERM)
        until = time.monotonic() + GRACE
        try:
            while time.monotonic() < until and not _ended(child.pid):
                time.sleep(0.02)
        finally:  # a stop (Ctrl-C, SIGTERM) that cut the grace short left survivors for ever
            with suppress(OSError):
                os.killpg(child.pid, signal.SIGKILL)
    with suppress(subprocess.TimeoutExpired, ValueError, OSError):  # what is left to read
        child.communicate(timeout=GRACE)
    for stream in (child.stdin, child.stdout, child.stderr):
        if stream is not None:
            with suppress(OSError):
                stream.close()
    child.wait()


def _ended(pid: int) -> bool:
    """Whether the child `pid` has ended, without reaping it (its number stays its group's);
    False where that cannot be known (no os.waitid: macOS before Python 3.13), so GRACE is
    waited out (it was an AttributeError: share's traceback, its git's group never killed)."""
    if not hasattr(os, "waitid"):
        return False
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:  # reaped already (SIGCHLD ignored): it has ended
        return True


def start_detached(argv: list[str], log: BinaryIO) -> subprocess.Popen[bytes]:
    """Start `argv` with no input and its output to `log`, detached from this process: a
    session of its own on POSIX, a process group with no console on Windows, so neither the
    terminal's Ctrl-C nor its closing reaches it."""
    import subprocess

    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        flags = subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP
        return subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            creationflags=flags,
        )  # fmt: skip
    return subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip


def fork_detached(log: BinaryIO) -> bool | None:
    """Go on in a detached copy of this process, as start_detached starts a new one (a session
    of its own, no input, its output to `log`), without starting Python again: True in the
    copy, False here; None where there is no fork (Windows: callers start a process instead).
    Only for a process that runs no other thread yet. The copy keeps no file of this one but
    `log` (on its stdout and stderr). A double fork: the child in between exits at once and is
    reaped here (no zombie), and the copy is no child of this process."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        return None
    between = os.fork()
    if between:
        with suppress(ChildProcessError):  # SIGCHLD ignored (inherited): reaped already
            os.waitpid(between, 0)  # it ends as soon as it has forked the copy
        return False
    os.setsid()
    if os.fork():
        os._exit(0)  # the child in between: no flush, no atexit of this process's state
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(log.fileno(), 1)
    os.dup2(log.fileno(), 2)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # as a new process has: nothing of the client's
    return True


def leave_parent() -> None:
    """Go on in a child of this process and end this one, so the process is no longer a
    descendant of whatever started it (clients that end a server's whole process tree then
    spare it); open files and their locks go on in the child. A no-op on Windows."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        return
    if os.fork():
        os._exit(0)
