"""Run a short-lived child process (git plumbing) and collect what it prints.

Every git operation starts memidx's hook, and importing `subprocess` (with threading, selectors,
signal and locale) costs that process ~4 ms of a budget the user feels. posix_spawn and a poll
loop over three pipes do the same job for the two things memidx needs: argv in, bytes out; and
a detached start of the background embedding.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
from collections.abc import Callable, Mapping
from pathlib import Path

from memidx.frozen import Value

_READ_SIZE = 1 << 16
# Python ignores these; a child gets them back at their defaults, as subprocess does.
_DEFAULT_SIGNALS = (signal.SIGPIPE, signal.SIGXFSZ)


class Finished(Value):
    """A child process that has exited."""

    returncode: int
    stdout: bytes
    stderr: bytes


class Stopped(Exception):
    """The caller's watch stopped a child on what it printed."""


# Called with each piece of a child's stdout as it arrives: True stops the child there.
Watch = Callable[[bytes], bool]


def run_process(
    argv: list[str], env: Mapping[str, str], stdin: bytes = b"", watch: Watch | None = None
) -> Finished:
    """Run `argv` (looked up on PATH) with `stdin` as its input; OSError when it cannot start,
    Stopped (the child ended) as soon as `watch` says so."""
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        pid = os.posix_spawnp(
            argv[0],
            argv,
            env,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, in_r, 0),
                (os.POSIX_SPAWN_DUP2, out_w, 1),
                (os.POSIX_SPAWN_DUP2, err_w, 2),
            ],
            setsigdef=_DEFAULT_SIGNALS,
        )
    except BaseException:
        for fd in (in_w, out_r, err_r):
            os.close(fd)
        raise
    finally:
        for fd in (in_r, out_w, err_w):  # the child has its copies
            os.close(fd)
    try:
        stdout, stderr = _exchange(in_w, out_r, err_r, stdin, watch)
    except Stopped:
        # Until it is waited for, the pid is the child's. With SIGCHLD ignored the kernel reaps
        # it at once and the pid may be reused: there the closed pipe ends it (SIGPIPE).
        if signal.getsignal(signal.SIGCHLD) != signal.SIG_IGN:
            os.kill(pid, signal.SIGKILL)
        raise
    finally:
        returncode = _wait(pid)
    return Finished(returncode, stdout, stderr)


_detached: set[int] = set()  # started by spawn_detached, reaped once they have exited


def spawn_detached(argv: list[str], log: Path) -> int:
    """Start `argv[0]` (a path) in a session of its own, with no input and its output appended
    to `log`, without waiting for it; returns its process id."""
    for pid in list(_detached):
        if _exited(pid):
            _detached.discard(pid)
    pid = os.posix_spawn(
        argv[0],
        argv,
        os.environ,
        file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, str(log), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644),
            (os.POSIX_SPAWN_DUP2, 1, 2),
        ],
        setsid=True,
        setsigdef=_DEFAULT_SIGNALS,
    )
    _detached.add(pid)
    return pid


def _exited(pid: int) -> bool:
    try:
        return os.waitpid(pid, os.WNOHANG)[0] == pid
    except ChildProcessError:
        return True


def _wait(pid: int) -> int:
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:  # SIGCHLD inherited as ignored: the kernel reaped it (as subprocess)
        return 0
    return os.waitstatus_to_exitcode(status)


def _exchange(
    in_w: int, out_r: int, err_r: int, stdin: bytes, watch: Watch | None
) -> tuple[bytes, bytes]:
    """Feed stdin and drain stdout and stderr together, so no pipe fills up and blocks the child;
    closes the three descriptors."""
    received: dict[int, list[bytes]] = {out_r: [], err_r: []}
    pending = memoryview(stdin)
    open_fds = {in_w, out_r, err_r}
    poller = select.poll()
    try:
        for fd in (out_r, err_r):
            poller.register(fd, select.POLLIN)
        if pending:
            os.set_blocking(in_w, False)
            poller.register(in_w, select.POLLOUT)
        else:
            _close(in_w, poller, open_fds)
        while open_fds:
            for fd, _ in poller.poll():
                if fd == in_w:
                    pending = _feed(in_w, pending)
                    if not pending:
                        _close(in_w, poller, open_fds)
                    continue
                data = os.read(fd, _READ_SIZE)
                if not data:
                    _close(fd, poller, open_fds)
                    continue
                received[fd].append(data)
                if fd == out_r and watch is not None and watch(data):
                    raise Stopped
    finally:
        for fd in open_fds:
            os.close(fd)
    return b"".join(received[out_r]), b"".join(received[err_r])


def _feed(fd: int, pending: memoryview) -> memoryview:
    """Write what the pipe takes now; returns what is left (nothing once the child stops
    reading: its output and exit status then say why)."""
    try:
        return pending[os.write(fd, pending[:_READ_SIZE]) :]
    except BlockingIOError:
        return pending
    except BrokenPipeError:
        return pending[:0]


def _close(fd: int, poller: select.poll, open_fds: set[int]) -> None:
    with contextlib.suppress(KeyError):  # never registered: stdin with nothing to feed
        poller.unregister(fd)
    os.close(fd)
    open_fds.discard(fd)
