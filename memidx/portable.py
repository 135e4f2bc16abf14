"""One of the two modules that call operating-system-specific APIs, each with a fallback for
Windows (the other, memidx/children.py, starts processes): file locks (POSIX `fcntl.flock` dies
with the process: a killed memidx leaves none; Windows: the `filelock` package, and no lock on a
file already open); opening a note as it is (no link followed, no FIFO waited on, no newline
translation); a folder only this user can use; peak memory; whether a process is alive, ending
one even when stopped; which boot this is; room on a disk that will not say its free space; a
durable rename (a folder's fsync); whether a socket's other end hung up (the stop signals are in
memidx/portable_signals.py, the same rule). tests/unit/test_portability.py enforces it."""

from __future__ import annotations

import errno
import os
import sys
import time
from collections.abc import Generator
from contextlib import contextmanager, suppress
from pathlib import Path

from memidx.paths import file_identity
from memidx.state_folder import ensure_folder

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~2 ms
if TYPE_CHECKING:
    import socket

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    # O_BINARY: os.open is in text mode there unless asked; no FIFOs there to wait on
    OPEN_AS_IS = os.O_RDONLY | os.O_BINARY
else:
    # never follows a link nor waits on a FIFO, whatever the file became since it was listed
    OPEN_AS_IS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
NO_FIFO_WAIT = getattr(os, "O_NONBLOCK", 0)  # to write: a FIFO without a reader fails (ENXIO)
NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)  # to write in place: a link there fails (ELOOP)


@contextmanager
def file_lock(path: Path, *, wait: bool = True, timeout: float | None = None) -> Generator[bool]:
    """Hold an exclusive lock on `path` (created when missing) for the block; yields whether
    it was taken: always when `wait` is and no `timeout` (seconds in all) is given. Its
    holder may remove it (a stale lock): a file opened before then is let go, a new one taken."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        ensure_folder(path.parent)
        import filelock

        lock = filelock.FileLock(str(path), timeout=(-1 if timeout is None else timeout) * wait)
        try:
            acquired = lock.acquire()
        except filelock.Timeout:
            yield False
            return
        with acquired:  # released at the block's end
            yield True
    else:
        deadline = None if wait and timeout is None else time.monotonic() + (timeout or 0.0) * wait
        while True:  # taken again when its file was removed meanwhile (a stale lock cleared)
            ensure_folder(path.parent)  # its folder too (`rm -rf .memidx`): ignoring itself
            with os.fdopen(_open_lock(path), "a") as handle:
                taken = lock_open(handle.fileno(), deadline and deadline - time.monotonic())
                opened = os.fstat(handle.fileno())
                if not taken or file_identity(path) == (opened.st_dev, opened.st_ino):
                    yield taken
                    return


class NotAFile(OSError):
    """A lock path that is no file of memidx's (a link, a FIFO, a folder): the errno os.open
    gave, and one line that names the path and what to do (its strerror, and what it says)."""

    def __str__(self) -> str:
        return str(self.strerror)


def _open_lock(path: Path) -> int:
    """`path` (made when missing) open to be locked, as it is: a FIFO there held every hook to
    its deadline (ENXIO now: flock ignores it), and a dangling link made a file wherever it
    pointed, a link to a file locked that file (ELOOP now; BSD: EMLINK)."""
    way = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(path, way, 0o666)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.EMLINK, errno.ENXIO, errno.EISDIR):
            raise
        from memidx.text import display

        said = f"{display(str(path))} is no file (a link, a FIFO or a folder): remove it"
        raise NotAFile(exc.errno, said) from None


def user_id() -> str:
    """This user's number where the system has them (POSIX), else its login name."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        return os.environ.get("USERNAME", "user")
    return str(os.getuid())


def password_home() -> Path:
    """This user's home in the password database (KeyError, ValueError: none), or USERPROFILE."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        return Path.home()
    import pwd

    home = pwd.getpwuid(os.getuid()).pw_dir
    if not home:
        raise ValueError("no home folder in the password database")
    return Path(home)


def private_dir(folder: Path) -> bool:
    """Whether `folder` is a real folder (no link) of this user that no one else can enter
    (always False on Windows, where memidx does not use such folders)."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        return False
    import stat

    try:
        found = folder.lstat()
    except OSError:
        return False
    mode = found.st_mode
    return stat.S_ISDIR(mode) and not mode & 0o077 and found.st_uid == os.getuid()


def peak_memory_mb() -> float:
    """The most memory this process has held at once (resident set), in MB; 0.0 on Windows."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        return 0.0
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1 << 20) if sys.platform == "darwin" else peak / 1024  # bytes there, KiB here


def process_alive(pid: int) -> bool:
    """Whether process `pid` runs (another user's counts); False for no such process. A pid
    given again to a new process reads as alive: callers only spare a file on it."""
    if not 0 < pid <= 0xFFFF_FFFF:  # none has it: a DWORD on Windows, where ctypes raised past it
        return False
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        # os.kill(pid, 0) would end the process there: ask for its exit code instead
        import ctypes

        # use_last_error: else get_last_error() reads ctypes' own copy, always 0, and another
        # user's live process (access denied) read as gone, its files as a dead writer's
        kernel = ctypes.WinDLL("kernel32", use_last_error=True)
        handle = kernel.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:  # no such process is ERROR_INVALID_PARAMETER; anything else may run
            return ctypes.get_last_error() != 87
        try:
            code = ctypes.c_ulong()
            kernel.GetExitCodeProcess(handle, ctypes.byref(code))
            return code.value == 259  # STILL_ACTIVE
        finally:
            kernel.CloseHandle(handle)
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # none, or a pid no process can have
        return False
    except PermissionError:
        return True  # alive, another user's
    except OSError:
        return False
    return True


LOCK_POLL = 0.02  # seconds between the looks of a process waiting for a lock (lock_open)


def lock_open(fd: int, timeout: float | None = None) -> bool:
    """Take an exclusive lock on the open file `fd`, held until it is closed, waiting at most
    `timeout` seconds (None: as long as it takes); whether it was taken. Always on Windows,
    where it is a no-op (there writers of one file do not take turns)."""
    if sys.platform == "win32":
        return True
    import fcntl

    if timeout is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return True
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(LOCK_POLL)


def give_back(path: Path, found: os.stat_result) -> None:
    """Give `path` the owner `found` had: root writing in another user's home keeps it theirs."""
    if sys.platform != "win32" and (found.st_uid, found.st_gid) != (os.geteuid(), os.getegid()):
        os.chown(path, found.st_uid, found.st_gid)


BOOT_ID = "/proc/sys/kernel/random/boot_id"  # Linux: a random UUID made at each boot


def boot_id() -> str | None:
    """This boot's id (Linux), to tell a mark on time.monotonic() from one of another boot,
    which that clock, restarted at each boot, would read as recent; None where there is none
    (not Linux, no /proc) or it reads as no id (~10 us to read)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fd = os.open(BOOT_ID, os.O_RDONLY | os.O_CLOEXEC)
        try:
            text = os.read(fd, 64).decode("ascii", "replace").strip()
        finally:
            os.close(fd)
    except OSError:
        return None
    return text if len(text) == 36 and text.replace("-", "").isalnum() else None


def clock_ticks() -> int | None:
    """Clock ticks a second, the unit of /proc's process times (USER_HZ), as the system says
    (sysconf's CLK_TCK); None where it does not (Windows) or says no positive number."""
    if sys.platform == "win32":
        return None
    try:
        found = os.sysconf("SC_CLK_TCK")
    except (ValueError, OSError):  # a name this system does not know
        return None
    return found if found > 0 else None


def room_reserved(folder: Path, size: int) -> bool:
    """Whether `size` bytes could be given to a file in `folder` now (statvfs fails on some
    FUSE and network disks): posix_fallocate on a file removed first (one a kill left before,
    memidx.room_files removes). False without that call (Windows, macOS) or room."""
    if sys.platform == "win32" or not hasattr(os, "posix_fallocate"):
        return False
    import tempfile

    from memidx.room_files import PREFIX, clean_stale

    try:
        fd, name = tempfile.mkstemp(prefix=PREFIX, dir=folder)
    except OSError:
        return False
    try:
        with suppress(OSError):
            Path(name).unlink()  # the room goes back when fd closes, or the process ends
        clean_stale(folder, os.fstat(fd))
        os.posix_fallocate(fd, 0, max(size, 1))
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def kill(pid: int) -> None:
    """End process `pid` at once, a stopped one too (SIGTERM waits until it is continued)."""
    import signal

    os.kill(pid, signal.SIGTERM if sys.platform == "win32" else signal.SIGKILL)


def sync_folder(folder: Path) -> None:
    """Make the names in `folder` durable (a rename into it, a file made or removed there): a
    power loss after a file's own fsync can still lose its rename until the folder is synced.
    A no-op where a folder cannot be opened to sync (Windows); an error syncing is ignored,
    as the rename itself stands (only its durability is at stake)."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        return
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        with suppress(OSError):  # some file systems cannot sync a folder; the rename stands
            os.fsync(fd)
    finally:
        os.close(fd)


def hung_up(conn: socket.socket) -> bool:
    """Whether the other end of a connected socket has closed it (not only ended its writing:
    a hook that sent its request and waits for the answer has not), where the system tells
    (Linux's POLLHUP); else False. macOS's poll, built on kqueue, may say POLLHUP for an end
    only shut for writing, which would leave every hook unanswered."""
    if not sys.platform.startswith("linux"):
        return False
    import select

    poller = select.poll()
    poller.register(conn, select.POLLHUP)
    return any(event & select.POLLHUP for _, event in poller.poll(0))
