"""A lock memidx's writers wait for a bounded time: a process that never lets go (stopped with
Ctrl-Z, hung) fails the command in one line naming the lock, never holds it for ever."""

from __future__ import annotations

import os
import sys
from collections.abc import Generator
from contextlib import contextmanager, suppress
from pathlib import Path

from memidx.errors import MemidxError
from memidx.portable import NO_FIFO_WAIT, file_lock

# Seconds a writer waits in silence for a lock before it says so on a terminal.
SAY_AFTER = 2.0
# Set by memidx's pre-commit shim: 1 when the commit's output goes to no terminal (an agent's
# `git commit`, its output piped), whose person at the controlling terminal is not watching
# it; 0 when it goes to one.
UNSEEN = "MEMIDX_CHECKS_UNSEEN"


@contextmanager
def waited_lock(
    lock: Path, wait: float, holders: str, error: type[MemidxError] = MemidxError
) -> Generator[None]:
    """Hold `lock`, waiting `wait` seconds at most for it; then `error`, naming the lock and
    what may hold it (`holders`), with nothing written. A wait past SAY_AFTER seconds is said
    on a terminal (a `git commit` whose check waited a minute for a build showed nothing)."""
    left = wait
    if wait > SAY_AFTER:
        with file_lock(lock, timeout=SAY_AFTER) as taken:
            if taken:
                yield
                return
        left = wait - SAY_AFTER
        say_waiting(f"memidx: waiting up to {left:g} s more for {lock} ({holders})")
    with file_lock(lock, timeout=left) as taken:
        if not taken:
            raise error(
                f"another memidx process has held {lock} for {wait:g} s ({holders}): nothing "
                "was written",
                f"try again once it ends; `fuser -v {lock}` names it",
            )
        yield


def say_waiting(line: str) -> None:
    """`line` where the person waiting sees it: on stderr when it is a terminal; under the
    pre-commit framework (PRE_COMMIT=1), which holds a hook's output until the hook ends, on
    the controlling terminal, written without ever waiting for it. Nowhere when there is none,
    in CI, or when the commit's output goes to no terminal: memidx's shim says so (UNSEEN);
    under the framework alone, the hook's output is then a pipe, not the pty pre-commit gives
    it when its own stderr is a terminal (an agent's commit, or lazygit's, whose screen the
    line landed on)."""
    if os.environ.get("PRE_COMMIT") != "1":
        if sys.stderr.isatty():
            print(line, file=sys.stderr, flush=True)
        return
    if os.environ.get("CI", "").lower() not in ("", "0", "false"):
        return
    mark = os.environ.get(UNSEEN)  # memidx's shim's; none under the framework alone
    if mark != "0" if mark else not sys.stdout.isatty():
        return
    from memidx.text import display

    # the controlling terminal (none: ENXIO; Windows has no /dev/tty), written non-blocking
    # (O_NONBLOCK): a terminal stopped with Ctrl-S fails the write instead of holding the hook
    with suppress(OSError):
        fd = os.open("/dev/tty", os.O_WRONLY | NO_FIFO_WAIT)
        try:  # after the framework's `name.....`, which waits for the hook's verdict
            os.write(fd, f"\n{display(line)}\n".encode("utf-8", "replace"))
        finally:
            os.close(fd)
