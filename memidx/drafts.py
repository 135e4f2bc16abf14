"""A file's new bytes are written beside it under a name of the writer's own,
`.<name>.<pid>.<kind>` (`.<name>.<pid>-<thread>.<kind>` from a process's other threads: Hermes
Agent runs its sessions in threads of one process), then renamed over it: two writers never
write into one draft, and a draft a killed writer left is known by its pid and removed by the
next writer of that file (a live writer's is left alone; a pid the system gave again reads as
alive, so such a draft is only ever spared, never removed). A draft of an older memidx, whose
name carries no pid (`.<name>.<kind>`), is removed once nothing has written it for an hour.
A new folder is made durable the same way (make_folder)."""

from __future__ import annotations

import _thread  # not threading: ~1 ms more for every hook, which runs one thread
import errno
import os
import re
import stat
import time
from contextlib import suppress
from pathlib import Path

from memidx.portable import NO_FIFO_WAIT, NO_FOLLOW, OPEN_AS_IS, process_alive, sync_folder
from memidx.state_folder import ensure_folder

_FIRST_THREAD = _thread.get_native_id()  # the importing thread's drafts carry the pid alone
_WRITER = re.compile(r"([0-9]+)(?:-[0-9]+)?")
# A draft is written in seconds (a model file in a minute): one without a pid that nothing has
# written for this long has no live writer, whichever memidx made it.
ABANDONED_AFTER = 3600.0
# A file kept only for its user (mode=PRIVATE): a transcript copy and what is kept beside it
# (memidx/memory/archives_left.py), whatever the umask
PRIVATE = 0o600

TYPE_CHECKING = False  # not typing's: agents' hooks import this module (memidx/portable.py)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import BinaryIO


def draft_path(path: Path, kind: str) -> Path:
    """Where this thread writes `path`'s new bytes before renaming them over it: its pid, and
    its thread's id unless it is the thread that imported this module (no two live threads
    of a process have one id, so no two share a draft)."""
    thread = _thread.get_native_id()
    writer = f"{os.getpid()}" if thread == _FIRST_THREAD else f"{os.getpid()}-{thread}"
    return path.with_name(f".{path.name}.{writer}.{kind}")


def draft_pid(path: Path, kind: str, name: str) -> int | None:
    """The pid a draft of `path` named `name` carries; None for any other name."""
    prefix, suffix = f".{path.name}.", f".{kind}"
    if not name.startswith(prefix) or not name.endswith(suffix):
        return None
    writer = _WRITER.fullmatch(name[len(prefix) : len(name) - len(suffix)])
    return None if writer is None else int(writer[1])


def remove_dead_drafts(path: Path, kind: str) -> list[Path]:
    """Remove the `kind` drafts of `path` whose writers are gone; returns what was removed."""
    removed: list[Path] = []
    try:
        names = [one.name for one in path.parent.iterdir()]
    except OSError:
        return removed  # no folder to list (yet): nothing left in it
    for name in names:
        if name == f".{path.name}.{kind}":  # an older memidx's draft: no pid to ask
            if remove_abandoned(path.parent / name):
                removed.append(path.parent / name)
            continue
        pid = draft_pid(path, kind, name)
        if pid is None or pid == os.getpid() or process_alive(pid):
            continue
        with suppress(OSError):  # another writer removed it first, or it is no file
            (path.parent / name).unlink()
            removed.append(path.parent / name)
    return removed


def remove_abandoned(draft: Path) -> bool:
    """Remove `draft`, a file an older memidx wrote under a name without its pid, when nothing
    has written it for ABANDONED_AFTER (no live writer's, whatever its version); whether it
    was removed."""
    try:
        found = draft.lstat()
        if not stat.S_ISREG(found.st_mode) or time.time() - found.st_mtime < ABANDONED_AFTER:
            return False
        draft.unlink()
    except OSError:  # gone meanwhile, or not ours to remove
        return False
    return True


def replace_durably(
    path: Path, data: bytes, kind: str, *, durable: bool = True, mode: int | None = None
) -> None:
    """Write `data` to a draft of `path` (with permissions `mode` when given) and rename it
    over `path`, as replace_through does; a killed writer's draft is removed first."""
    remove_dead_drafts(path, kind)
    replace_through(path, draft_path(path, kind), lambda out: out.write(data), durable=durable,
                    mode=mode)  # fmt: skip


def replace_through(
    path: Path,
    draft: Path,
    write: Callable[[BinaryIO], object],
    *,
    durable: bool = True,
    mode: int | None = None,
) -> None:
    """Write `draft` through `write` and rename it over `path`; `durable` (the fsync setting):
    the draft is synced before the rename and the folder after it, so a power loss leaves the
    old file or the new one, whole. A write that fails (a full disk) removes its draft, and its
    error names `path`. The draft is made with `mode` (less the umask), never readable by more
    people than the file it replaces while the bytes are written (`~/.claude.json` may hold
    tokens)."""
    try:
        draft.unlink(missing_ok=True)  # a leftover under this pid would keep its permissions
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0)
        made = os.open(draft, flags, 0o666 if mode is None else mode | 0o200)
        with os.fdopen(made, "wb") as out:
            write(out)
            out.flush()
            if durable:
                os.fsync(out.fileno())
        if mode is not None:
            draft.chmod(mode)
        draft.replace(path)
    except BaseException as exc:
        draft.unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.filename is None:
            exc.filename = str(path)  # a write or flush names no file (ENOSPC, EIO): name it
        raise
    if durable:
        sync_folder(path.parent)


READ_SIZE = 1 << 20  # os.read allocates what it is asked for: never a whole limit at once


def read_up_to(fd: int, limit: int) -> bytes:
    """At most `limit` bytes of the open file `fd`, from where it stands, read a piece at a
    time."""
    parts: list[bytes] = []
    held = 0
    while held < limit and (part := os.read(fd, min(limit - held, READ_SIZE))):
        parts.append(part)
        held += len(part)
    return b"".join(parts)


def read_regular(path: Path, most: int) -> bytes | None:
    """At most `most` bytes from the start of `path`, read as it is: None when it is no
    regular file (a FIFO there is not waited on for a writer, a link not followed) or cannot
    be read."""
    try:
        fd = os.open(path, OPEN_AS_IS)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return read_up_to(fd, most)
    except OSError:
        return None
    finally:
        os.close(fd)


def read_tail(path: Path, most: int) -> tuple[bytes, bool] | None:
    """The last `most` bytes of `path` and whether they are all it holds, read as it is
    (read_regular): None when it is no regular file or cannot be read."""
    try:
        fd = os.open(path, OPEN_AS_IS)
    except OSError:
        return None
    try:
        size = os.fstat(fd)
        if not stat.S_ISREG(size.st_mode):
            return None
        os.lseek(fd, max(0, size.st_size - most), os.SEEK_SET)
        return read_up_to(fd, most), size.st_size <= most
    except OSError:
        return None
    finally:
        os.close(fd)


def open_regular(path: Path) -> int | None:
    """A descriptor of `path` open for reading as it is: None when it is gone or no regular
    file (a FIFO there is not waited on for a writer, a link not followed); any other error
    (EACCES, EIO, a folder there) is raised, naming `path`, as a read in place raised it."""
    try:
        fd = os.open(path, OPEN_AS_IS)
    except OSError:
        try:
            regular = stat.S_ISREG(path.lstat().st_mode)
        except FileNotFoundError:
            return None
        if regular:
            raise
        return None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):  # raised by fdopen, naming the descriptor's number: the path
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        return None
    return fd


def read_whole(path: Path) -> bytes | None:
    """All the bytes of `path`, read as it is (open_regular): None when it is gone or no
    regular file; any other error is raised, naming `path`."""
    if (fd := open_regular(path)) is None:
        return None
    with os.fdopen(fd, "rb", buffering=0) as stream:  # one read of the size fstat gives
        return stream.readall()


def read_own(path: Path, limit: int) -> bytes | None:
    """The bytes of `path`, a file memidx writes as above, read as it is (read_regular): None
    also when it holds more than `limit` bytes. Read in place, a FIFO put there was waited on
    for ever."""
    data = read_regular(path, limit + 1)
    return None if data is None or len(data) > limit else data


# what open_to_append raises for no file of memidx's: a link (O_NOFOLLOW; BSD: EMLINK), a
# FIFO, a folder
NOT_OWN = frozenset({errno.ELOOP, errno.EMLINK, errno.ENXIO, errno.EISDIR})


def not_own(path: Path) -> str:
    """What to say of `path` when open_to_append refused it (an errno of NOT_OWN)."""
    from memidx.text import display

    return f"{display(str(path))} is no file (a link, a FIFO or a folder): remove it"


def open_to_append(path: Path, *, create: bool = True) -> BinaryIO:
    """`path` (made when missing, unless not `create`: FileNotFoundError then) open to append
    bytes: a FIFO there fails at once (ENXIO) rather than wait for a reader for ever, or, read
    by someone, take the output; a link there fails too (ELOOP): memidx appends only to a file
    of its own."""
    flags = os.O_WRONLY | os.O_APPEND | NO_FIFO_WAIT | NO_FOLLOW | (os.O_CREAT if create else 0)
    flags |= getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags, 0o666)
    if stat.S_ISFIFO(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.ENXIO, "a FIFO, not a file memidx appends to", str(path))
    return os.fdopen(fd, "ab")


def make_folder(folder: Path, *, durable: bool = True) -> None:
    """Make `folder` (and the missing folders above it) so that it survives a power loss:
    each one made is synced into its parent; only made with `durable=False` (fsync off)."""
    missing: list[Path] = []
    place = folder
    while not place.is_dir() and place.parent != place:
        missing.append(place)
        place = place.parent
    ensure_folder(folder)
    if durable:
        for made in reversed(missing):
            sync_folder(made.parent)
