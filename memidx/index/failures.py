"""The trace a failed hook leaves for `memidx status` and the pre-commit check.

Plain text in the state folder (not in the index, which may be the thing that is broken):
one line per failure, `<UTC time>\\t<hook>\\t<message>`; where the memory's state folder cannot
be written, in the user's state folder instead (memidx.locations.user_trace_dir). The shell
shim in hooks/ writes the same format when it cannot even start Python.
"""

from __future__ import annotations

import contextlib
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from stat import S_ISREG

from memidx.frozen import Value
from memidx.index.trace_trim import MAX_TRACE, drop_draft, drop_left_draft, still_at, trimmed
from memidx.locations import user_trace_dir
from memidx.portable import NO_FIFO_WAIT, NO_FOLLOW, lock_open
from memidx.state_folder import ensure_folder

# seconds a trace's writer or clearer waits for its lock, which another holds for one write: a
# holder stopped (Ctrl-Z) or hung past it must not hang the git operation or the agent hook
LOCK_WAIT = 1.0
TAIL_BYTES = 64 * 1024  # the end of a trace read first for its last failure (_last_in)
MAX_MESSAGE = 4096  # characters of a failure's message: its line (UTF-8) fits in TAIL_BYTES
# a FIFO there fails at once (ENXIO); a link there too (ELOOP): the line went into whatever
# file it named, not one memidx owns, and the fallback trace takes it instead
_TO_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | NO_FIFO_WAIT | NO_FOLLOW
TYPE_CHECKING = False  # not typing's: every git hook imports this module
if TYPE_CHECKING:
    from collections.abc import Callable

    from memidx.config import Config


class HookFailure(Value):
    """The last failure a hook recorded."""

    when: str
    hook: str
    message: str
    about: str = ""  # a late pull's line: what it pulled (memidx.git.late_pull_line)


def fallback_trace(root: Path, trace: Path) -> Path | None:
    """Where `trace`, in the state folder of the memory at `root`, goes when that folder cannot
    be written; None without a home."""
    found = user_trace_dir(root)
    return None if found is None else found / trace.name


def traces(root: Path, trace: Path) -> tuple[Path, ...]:
    """`trace` and its fallback: every one `memidx status` reads and an index in step clears."""
    fallback = fallback_trace(root, trace)
    return (trace,) if fallback is None else (trace, fallback)


def hook_traces(config: Config) -> tuple[Path, ...]:
    """The git hooks' trace of the memory `config` names, and its fallback."""
    return traces(config.root, config.hook_error_path)


PULL = "git pull"  # the hook name of a late pull's line (memidx.git.late_pull)


def pull_trace(config: Config) -> Callable[[str, str], None]:
    """Where a late `git pull` memidx could not put HEAD back for is said (memidx.git.late_pull,
    through commit_paths' `unhelped`: its line and what the pull pulled, `about`): its own
    trace, which no sync clears (git's hooks' is, by the sync right after memidx's commit); a
    pull's merge or rebase since clears it, and `memidx status` once the branch holds what the
    pull pulled and lacked as it read it (memidx.memory.pull_line)."""
    path = config.pull_error_path
    fallback = fallback_trace(config.root, path)
    return lambda said, about: record_failure(path, PULL, said, fallback=fallback, about=about)


def record_failure(
    path: Path, hook: str, message: str, *, fallback: Path | None = None, about: str = ""
) -> None:
    """Append one failure line to `path`, else (its folder cannot be written: a read-only
    mount, a full disk; a link or a FIFO in its place) to `fallback`, else to stderr, never
    lost unsaid; never raises (a hook must not fail the git operation). A line is written
    whole or not at all: a file it made and could not fill is removed. `about`, when given,
    is the line's fourth field (HookFailure.about), never shown."""
    when = datetime.now(UTC).isoformat(timespec="seconds")
    said = " ".join(message.split())
    if len(said) > MAX_MESSAGE:  # a longer line was read cut, as no failure (_last_in)
        said = said[: MAX_MESSAGE - 1] + "…"
    about = " ".join(about.split())[:MAX_MESSAGE]
    line = "\t".join([when, hook, said, *([about] if about else [])]) + "\n"
    # a lone surrogate (argv bytes that are not UTF-8) is written escaped, never raised
    data = line.encode("utf-8", errors="backslashreplace")
    for where in (path, fallback):
        if where is not None and _append_whole(where, data):
            return
    with contextlib.suppress(OSError, ValueError):  # no stderr left (closed): nothing to do
        print(f"memidx: {hook}: {said} (could not keep this in {path})", file=sys.stderr)


def _append_whole(path: Path, data: bytes) -> bool:
    """Append `data` to `path` in one write; whether it is all there. Its appenders take turns
    (lock_open): one taking back its torn line never cuts another's, nor has its own land in
    a file just removed."""
    for _ in range(10):  # the file was removed (or replaced) while this waited for it
        try:
            ensure_folder(path.parent)  # never the memory's folder, gone: the fallback's line
            fd = os.open(path, _TO_APPEND, 0o666)
        except OSError:
            return False
        try:
            turn = False  # a file system without locks, or not taken in time: append all the same
            with contextlib.suppress(OSError):
                turn = lock_open(fd, LOCK_WAIT)
            if still_at(fd, path):
                if turn and trimmed(fd, path, len(data)):
                    continue  # `path` names its newest lines now: appended to there
                return _write_whole(fd, path, data)
        finally:
            os.close(fd)
    return False


def _write_whole(fd: int, path: Path, data: bytes) -> bool:
    """Write `data` at the end of `path`, open as `fd`, or take back what of it was written
    (a file it made and could not fill goes)."""
    before = written = 0
    try:
        before = os.fstat(fd).st_size
        written = os.write(fd, data)
    except OSError:
        pass
    else:
        if written == len(data):
            return True
    with contextlib.suppress(OSError):  # only the shell hooks append without the lock
        if os.fstat(fd).st_size == before + written:  # no one else appended since: take it back
            os.ftruncate(fd, before)
            if before == 0:
                path.unlink()
    return False


NOTICE = "notice: "  # a line that records what a hook said, not that it failed


def last_failure(*paths: Path) -> HookFailure | None:
    """The most recent failure recorded in any of `paths` (a memory's trace and its fallback),
    or None; notices (NOTICE) are no failures."""
    found = [f for f in map(_last_in, paths) if f is not None]
    return max(found, key=lambda f: f.when) if found else None


def _last_in(path: Path) -> HookFailure | None:
    """The last failure in the trace `path`: in its last TAIL_BYTES, else in its last MAX_TRACE
    (all of a trace, which its trim keeps within that): an agent's late notices after it, 64 KiB
    of them (~600 hooks), hid it from `memidx status`."""
    from memidx.drafts import read_tail  # only here: every git hook imports this module

    for most in (TAIL_BYTES, MAX_TRACE):
        read = read_tail(path, most)  # as it is: a FIFO there hung the check and status
        if read is None:
            return None
        found = _last_of(*read)
        if found is not None or read[1]:
            return found
    return None


def failures_in(path: Path) -> list[HookFailure]:
    """Every failure in the trace `path` (kept within MAX_TRACE by its trim), oldest first."""
    from memidx.drafts import read_tail  # only here: every git hook imports this module

    read = read_tail(path, MAX_TRACE)
    return [] if read is None else failures_of(*read)


def _last_of(data: bytes, whole: bool) -> HookFailure | None:
    """The last failure in `data`, the end of a trace (`whole`: all of it)."""
    found = failures_of(data, whole)
    return found[-1] if found else None


def failures_of(data: bytes, whole: bool) -> list[HookFailure]:
    """The failures in `data`, the end of a trace (`whole`: all of it), oldest first."""
    lines = data.decode("utf-8", "replace").splitlines()
    if not whole:
        lines = lines[1:]  # the first may be the end of a line the tail cut
    found: list[HookFailure] = []
    for line in lines:
        parts = line.split("\t", 3)  # a message holds no tab (record_failure)
        if len(parts) >= 3 and not parts[2].startswith(NOTICE):
            found.append(HookFailure(*parts))
    return found


# Each trace's identity, size and time when a sync began (None: there was none).
Marks = tuple[tuple[Path, tuple[int, int, int] | None], ...]


def clear_failures(*paths: Path) -> None:
    """Forget recorded failures once the work they are about is known to be done again."""
    clear_unchanged(trace_marks(*paths))


def trace_marks(*paths: Path) -> Marks:
    """What the traces `paths` (a memory's trace and its fallback) hold now: taken when a sync
    begins, for clear_unchanged once it ends in step."""
    return tuple((path, _mark(path)) for path in paths)


def sync_marks(config: Config) -> Marks:
    """What a sync's end (clear_unchanged) takes: the git hooks' traces, which an index in
    step clears, and those it never clears (an agent hook's, a late pull's), whose draft a
    killed trim left it sweeps all the same once they are gone (drop_left_draft): removed by
    hand, or a pull's by `memidx status`, no line came to sweep it, and it stayed for good."""
    swept = (config.agent_hook_error_path, config.pull_error_path)
    others = tuple((path, None) for trace in swept for path in traces(config.root, trace))
    return trace_marks(*hook_traces(config)) + others


def clear_unchanged(marks: Marks) -> None:
    """Forget the failures recorded before `marks` were taken, now that the index is in step:
    a trace nothing was added to since goes. One a hook added to meanwhile (it failed on the
    lock the sync held, maybe on a commit the sync did not read) stays whole, its newest line
    first for `memidx status`. A trace that cannot be removed (a read-only mount) stays too:
    the sync itself succeeded."""
    for path, mark in marks:
        if mark is not None:
            _remove_unchanged(path, mark)
        drop_left_draft(path)  # a killed trim's, its trace gone: no line comes to take it


def _remove_unchanged(path: Path, mark: tuple[int, int, int]) -> None:
    """Remove the trace `path` if it is as `mark` says, holding its lock: a hook appending now
    waits, then finds the file gone and makes a new one (its line was never in this one)."""
    try:  # a link put there since is not followed: the file it names is none of memidx's
        fd = os.open(path, os.O_RDONLY | NO_FIFO_WAIT | NO_FOLLOW)
    except OSError:
        return
    try:
        held = False  # a file system without locks: removed all the same, its draft not
        with contextlib.suppress(OSError):
            if not (held := lock_open(fd, LOCK_WAIT)):
                return  # a hook that holds it may be writing a line: the next sync clears it
        if _mark(path) == mark:
            if held and still_at(fd, path):
                drop_draft(path)  # a trim killed midway left it: no trace, no trim to take it
            with contextlib.suppress(OSError):
                path.unlink()
    finally:
        os.close(fd)
    if _mark(path) == mark:  # Windows removes no file that is open (and has no lock_open)
        with contextlib.suppress(OSError):
            path.unlink()


def _mark(path: Path) -> tuple[int, int, int] | None:
    """The trace's identity, size and time; None for no file memidx could have written there
    (a link, a FIFO, a folder), which no sync removes: a link there was unlinked."""
    try:
        found = path.lstat()
    except OSError:
        return None
    if not S_ISREG(found.st_mode):
        return None
    return (found.st_ino, found.st_size, found.st_mtime_ns)
