"""Run a short-lived child process (git plumbing) and collect what it prints; start the
background embedding detached.

This is the standard library's `subprocess`, on every system: it gives the child back the
signals Python ignores (SIGPIPE, SIGXFSZ), closes every other descriptor, survives an ignored
SIGCHLD and runs on Windows. A hand-written posix_spawn launcher did the same on POSIX only;
measured on the post-commit hook of a one-note commit at 18.7k notes, it saved 3.5-5.5 ms
(importing subprocess ~3.5 ms, the hook's one git call ~0.2 ms; 11.5 M instructions, 9%), too
little to keep a second launcher for Windows beside it.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
from collections.abc import Callable, Generator, Mapping
from pathlib import Path

from memidx.children import start_detached
from memidx.drafts import open_to_append
from memidx.frozen import Value

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~2 ms
if TYPE_CHECKING:
    from typing import IO

_READ_SIZE = 1 << 16
_ERROR_TAIL = 1 << 16  # the end of a child's stderr kept: its last lines say why it failed


class Finished(Value):
    """A child process that has exited."""

    returncode: int
    stdout: bytes
    stderr: bytes


KILLED = "killed by"  # what `ended` says of a child a signal ended, surely or maybe
GIT_USAGE = 129  # git's status for a usage error (128 + SIGHUP's number): never read as a signal


def ended(status: int, said: str = "") -> str:
    """How a child ended, after its name, from its status and what it `said` on stderr:
    `failed: <its last line>` or `exited with status 1`; when a signal ended it, the kill first
    (`was killed by SIGKILL`), then `, after it printed: <its last line>` (a git that warned,
    then was killed, read as its warning)."""
    lines = [line.strip() for line in said.splitlines() if line.strip()]
    kill = killing(status, lines)
    last = lines[-1] if lines else None
    if kill is None:
        return f"failed: {last}" if last else f"exited with status {status}"
    return f"{kill}, after it printed: {last}" if last else kill


def killing(status: int, lines: list[str]) -> str | None:
    """`was killed by SIGKILL` for Popen's negative status (a signal's number), or for a
    shell's 128 + its number where the shell's own line says so (`Killed`, taken off `lines`):
    a git wrapper that does not `exec` git; `exited with status 137 (killed by SIGKILL?)` for
    such a status without it (a git whose own child a signal ended exits so too); else None."""
    import signal

    if status < 0:
        number = -status
    elif 128 < status < 128 + signal.NSIG and status != GIT_USAGE:
        number = status - 128
    else:
        return None
    try:
        name = signal.Signals(number).name
    except ValueError:  # a number no signal of this system has
        return f"was {KILLED} signal {number}" if status < 0 else None
    if status < 0:
        return f"was {KILLED} {name}"
    if lines and _shell_said(lines[-1], signal.strsignal(number)):
        lines.pop()
        return f"was {KILLED} {name}"
    return f"exited with status {status} ({KILLED} {name}?)"


def _shell_said(line: str, text: str | None) -> bool:
    """Whether `line` is a shell's word for its child's end by the signal whose description is
    `text`: dash's `Killed`, bash's `./git: line 3:  2158 Killed   git commit-tree ...`."""
    import re

    return bool(text) and re.match(rf"(?:.*: +\d+ +)?{re.escape(text or '')}\b", line) is not None


class Stopped(Exception):
    """The caller's watch stopped a child on what it printed."""


# Called with each piece of a child's stdout as it arrives: True stops the child there.
Watch = Callable[[bytes], bool]


def run_process(
    argv: list[str],
    env: Mapping[str, str],
    stdin: bytes = b"",
    watch: Watch | None = None,
    cwd: Path | None = None,
) -> Finished:
    """Run `argv` (looked up on PATH; in `cwd`, when given) with `stdin` as its input; OSError
    when it cannot start, Stopped (the child ended) as soon as `watch` says so. Only the end of
    its stderr is kept (a child that writes to it without bound never makes this process grow
    with it)."""
    pipe = subprocess.PIPE
    given = pipe if stdin else subprocess.DEVNULL  # no input: an empty pipe's end, at once
    with subprocess.Popen(argv, stdin=given, stdout=pipe, stderr=pipe, env=env, cwd=cwd) as child:
        out, err = child.stdout, child.stderr
        assert out is not None and err is not None  # both are pipes
        errors: list[bytes] = []
        # stdin is fed and stderr drained beside the reading of stdout, so no pipe fills up
        # and blocks the child
        helpers = [threading.Thread(target=_drain_tail, args=(err, errors))]
        if child.stdin is not None:
            helpers.append(threading.Thread(target=_feed, args=(child.stdin, stdin)))
        for helper in helpers:
            helper.start()
        try:
            output = _read_watched(out, watch)
        except BaseException:  # Stopped, or Ctrl-C: never left running
            child.kill()  # never a reused pid: Popen knows when the child was reaped
            raise
        finally:
            for helper in helpers:
                helper.join()
    return Finished(child.returncode, output, b"".join(errors))


class Failed(Exception):
    """A streamed child process exited non-zero (`done` holds its status and stderr)."""

    def __init__(self, done: Finished) -> None:
        super().__init__(done.returncode)
        self.done = done


def stream_process(argv: list[str], env: Mapping[str, str]) -> Generator[bytes, None, None]:
    """Run `argv` (looked up on PATH) with no input and yield its stdout in pieces as they
    arrive, so a long output is never held whole (nor its stderr: only its end is kept);
    OSError when it cannot start, Failed after the last piece when it exited non-zero. A
    caller that stops early ends the child."""
    pipe, null = subprocess.PIPE, subprocess.DEVNULL
    with subprocess.Popen(argv, stdin=null, stdout=pipe, stderr=pipe, env=env) as child:
        out, err = child.stdout, child.stderr
        assert out is not None and err is not None  # both are pipes
        errors: list[bytes] = []
        drain = threading.Thread(target=_drain_tail, args=(err, errors))  # never fills up
        drain.start()
        read_all = False
        try:
            while data := os.read(out.fileno(), _READ_SIZE):
                yield data
            read_all = True
        finally:
            if not read_all:  # the caller stopped (or failed) before the end
                child.kill()  # never a reused pid: Popen knows when the child was reaped
            drain.join()
    if child.returncode != 0:
        raise Failed(Finished(child.returncode, b"", b"".join(errors)))


def _read_watched(stream: IO[bytes], watch: Watch | None) -> bytes:
    """Read `stream` to its end, showing each piece to `watch`; Stopped when it says so."""
    received: list[bytes] = []
    while data := os.read(stream.fileno(), _READ_SIZE):
        received.append(data)
        if watch is not None and watch(data):
            raise Stopped
    return b"".join(received)


def _drain_tail(stream: IO[bytes], into: list[bytes]) -> None:
    """Read `stream` to its end and add its last _ERROR_TAIL bytes to `into`: a child that
    writes to stderr without bound never makes this process grow with it."""
    kept = bytearray()
    while data := os.read(stream.fileno(), _READ_SIZE):
        kept += data
        if len(kept) > 2 * _ERROR_TAIL:  # cut now and then: each byte is moved about once
            del kept[:-_ERROR_TAIL]
    into.append(bytes(kept[-_ERROR_TAIL:]))


def _feed(stream: IO[bytes], data: bytes) -> None:
    """Write the child's input; a child that stops reading it is no error (its output and exit
    status then say why)."""
    with contextlib.suppress(OSError):  # BrokenPipeError included
        stream.write(data)
    with contextlib.suppress(OSError):
        stream.close()


_detached: set[subprocess.Popen[bytes]] = set()  # started here, reaped once they have exited


def reap_detached() -> None:
    """Reap the detached children this process started that have exited: a zombie reads as
    running where the system does not tell one (not Linux), as to memidx.memory.fill_sync."""
    for child in list(_detached):
        if child.poll() is not None:
            _detached.discard(child)


def spawn_detached(argv: list[str], log: Path) -> int:
    """Start `argv[0]` (a path) detached from this process, with no input and its output
    appended to `log`, without waiting for it; returns its process id."""
    reap_detached()
    with open_to_append(log) as out:  # a FIFO there fails at once: it was waited on for ever
        child = start_detached(argv, out)
    _detached.add(child)
    return child.pid
