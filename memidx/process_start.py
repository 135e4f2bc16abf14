"""Processes read from Linux /proc: the one reader of /proc/<pid>/stat (a process's name, state,
parent and start time), and whether the process a file names by its pid (a lock's token, a
copy's or a file aside's name) is gone, its pid perhaps given to another process since: a busy
machine uses pids again within minutes, and a killed memidx's lock whose pid a new process had
was taken for a live memidx's, kept for good. Told by start times (Linux /proc): the pid's
process started after the file was made is not the one that made it. Elsewhere only a pid no
process has counts as gone.

Raw reads (os.open, os.read): a look at every process, under HEAD's lock, reads ~200 of them,
and Path.read_text's text layer cost ~4x its reads (memidx.git.newcomers).

A file's time is the wall clock's, a process's start the boot clock's: the wall clock set
forward since the file was made (NTP's step) made its live maker's start read that much later,
after the file, and the file (a copy of git's index, a note moved aside, a lock) was removed
under it. So every memidx that makes a file named by a pid first notes the wall clock's offset
from the boot clock (note_clock), and the least offset noted this boot is the one a start is
read on: no more than the offset when any such file was made, so a clock step since makes a
start read earlier, never later (a pid given again keeps a file until that process ends, as
where no /proc tells, never a live maker's file lost)."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

TICKS = 100  # /proc's starttime unit (USER_HZ) where the system does not say (clock_ticks)
SLACK = 1.0  # seconds: a start this near the file's making is taken for its maker's
STATE, PARENT, START = 0, 1, 19  # in stat's fields after the command's name
ENDED = ("Z", "X")  # a zombie (not reaped yet) or dead: it holds nothing
CLOCK = "memidx-clock-{}-{}"  # uid, boot id: the least offset of the wall clock noted this boot
JITTER = 0.05  # seconds: offsets this near are one (two clocks read one after the other)
RUNTIME = "/run/user/{}"  # uid: the user's runtime folder (systemd's), XDG_RUNTIME_DIR or not
SYSTEM_TMP = "/tmp"  # the system's temporary folder, TMPDIR or not (a note in it is read as
# this user's only when the file is this user's: _read_clock)
_noted: dict[str, float] = {}  # the least offset this process noted or read, by boot id
_boot: list[str | None] = []  # this boot's id, once read
_ticks: list[int] = []  # clock ticks a second, once read


def clock_ticks() -> int:
    """Clock ticks a second, the unit of /proc's start times (USER_HZ: 100 on most Linux, not
    all), as the system says (SC_CLK_TCK), read once; TICKS where it cannot be read."""
    if not _ticks:
        from memidx.portable import clock_ticks as said

        _ticks.append(said() or TICKS)
    return _ticks[0]


def proc_stat(pid: int | str) -> tuple[str, list[str]]:
    """Process `pid`'s command name and the fields of its /proc stat after it (state at
    STATE, parent's pid at PARENT, start in clock ticks since boot at START); ("", []) where
    none is read (no /proc: not Linux; no such process)."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    except OSError:
        return "", []
    try:
        chunks = [os.read(fd, 4096)]
        while chunks[-1]:
            chunks.append(os.read(fd, 4096))
    except OSError:
        return "", []
    finally:
        os.close(fd)
    text = b"".join(chunks).decode("ascii", errors="replace")
    # "pid (comm) state ppid ...": the command's name may hold spaces and parentheses
    comm, closed, rest = text.partition(" (")[2].rpartition(")")
    return (comm, rest.split()) if closed else ("", [])


def process_started(pid: int | str) -> str | None:
    """When process `pid` started (clock ticks since boot, /proc's), None where that cannot be
    read (no /proc: not Linux; no such process). A zombie's too."""
    fields = proc_stat(pid)[1]
    return fields[START] if len(fields) > START and fields[START].isdigit() else None


def process_state(pid: int | str) -> str:
    """Process `pid`'s state letter (`R`, `S`, `T` stopped, `Z` a zombie...); "" where none is
    read."""
    fields = proc_stat(pid)[1]
    return fields[STATE] if fields else ""


def process_ended(pid: int | str) -> bool:
    """Whether process `pid` has ended though its parent has not reaped it yet (a zombie, which
    process_alive counts as running: the system still answers for its pid), where the system
    says (Linux)."""
    return process_state(pid) in ENDED


def running_since(pid: int | str) -> str:
    """When process `pid` started (clock ticks since boot); "" once it ended (a zombie, which
    its parent has not reaped yet, has ended too) or where /proc does not say."""
    fields = proc_stat(pid)[1]
    if len(fields) <= START or fields[STATE] in ENDED or not fields[START].isdigit():
        return ""
    return fields[START]


def began() -> float:
    """When this process began, on time.monotonic()'s clock: on Linux its start in /proc (to
    the clock tick: its fork, or its exec's caller's) read against the boot clock; where that
    start cannot be read or is not to be believed (_plausible_start), and elsewhere, at least
    its CPU time and the time since memidx was first imported (a start-up spent waiting before
    memidx's import, on a disk or a starved CPU, is not counted there)."""
    now, since_boot = time.monotonic(), uptime()
    start = _plausible_start(proc_stat("self")[1], since_boot)
    if start is not None and since_boot is not None:
        return now - (since_boot - start)
    import memidx

    return now - max(time.process_time(), time.perf_counter() - memidx.STARTED)


def _plausible_start(fields: list[str], since_boot: float | None) -> float | None:
    """The start, in seconds since boot, that /proc stat `fields` say, where it can be true:
    None for none, for 0, for one after now, or one before its parent's (a /proc that WSL1,
    gVisor or a container fakes: read as it is, every hook was judged to have started late)."""
    if since_boot is None or len(fields) <= START or not fields[START].isdigit():
        return None
    ticks = int(fields[START])
    parent = process_started(fields[PARENT])
    if str(os.getppid()) != fields[PARENT]:  # its parent ended since: that pid may be another's
        parent = None
    if ticks <= 0 or ticks / clock_ticks() > since_boot or int(parent or 0) > ticks:
        return None
    return ticks / clock_ticks()


def uptime() -> float | None:
    """Seconds since boot (the boot clock /proc's start times count on, suspends included);
    None where there is none (not Linux)."""
    if hasattr(time, "CLOCK_BOOTTIME"):  # Linux: the clock /proc/uptime reads, ~100x cheaper
        return time.clock_gettime(time.CLOCK_BOOTTIME)
    try:
        fd = os.open("/proc/uptime", os.O_RDONLY)
        try:
            return float(os.read(fd, 128).split()[0])
        finally:
            os.close(fd)
    except (OSError, ValueError, IndexError):
        return None


def wall_clock() -> float:
    """The wall clock (time.time(): files' times are on it), the one place it is read here."""
    return time.time()


def started_after(
    ticks: int, made: float, *, wall: float, since_boot: float, least: float | None
) -> bool:
    """Whether a process that started `ticks` clock ticks after boot started after a file made
    at `made` (on the wall clock), more than SLACK later, the clocks read now as `wall` and
    `since_boot`. `least`: the least offset of the wall clock from the boot clock noted this
    boot (None where none is kept): the start is read on it, so a wall clock set forward since
    the file was made never makes its maker's start read as after it."""
    offset = wall - since_boot
    if least is not None:
        offset = min(offset, least)
    return offset + ticks / clock_ticks() > made + SLACK


def note_clock(*, fresh: bool = False) -> float | None:
    """Note the wall clock's offset from the boot clock now where it is less than the least
    noted this boot (the file CLOCK in the user's runtime folder, else the temporary folder):
    the least noted, now included; None where there is no boot clock or boot id (not Linux),
    or no file for it. Run before a file named by this process's pid is made (or a shell's).
    `fresh`: the file read again (a judge's: another memidx may have noted less since)."""
    if not _boot:  # one boot for a process's whole life: read once (under HEAD's lock too)
        from memidx.portable import boot_id

        _boot.append(boot_id())
    boot, since_boot = _boot[0], uptime()
    if boot is None or since_boot is None:
        return None
    now = wall_clock() - since_boot
    if not fresh and boot in _noted and now >= _noted[boot] - JITTER:
        return _noted[boot]  # this process noted no more than that: nothing to write
    from memidx.portable import user_id

    name = CLOCK.format(user_id(), boot)
    noted = {folder: _read_clock(folder / name) for folder in clock_folders()}
    kept = min((found for found in noted.values() if found is not None), default=None)
    least = kept if kept is not None and kept <= now + JITTER else now
    # noted in every folder a memidx of another environment may read alone (one made with a
    # custom XDG_RUNTIME_DIR or TMPDIR was read by none run without it)
    short = [folder / name for folder, found in noted.items() if found is None or found > least]
    written = [path for path in short if _write_clock(path, least)]
    if least != kept and not written:  # none to be had: a start is read on the wall clock alone
        return kept
    _noted[boot] = least
    return least


def _write_clock(path: Path, offset: float) -> bool:
    """Note `offset` at `path`, whole or not there: made anew (never through a link another user
    put there); False when it cannot be."""
    from memidx.portable import NO_FOLLOW

    part = path.with_name(f"{path.name}.{os.getpid()}")
    try:
        part.unlink(missing_ok=True)
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NO_FOLLOW, 0o600)
    except OSError:
        return False
    try:
        try:
            os.write(fd, f"{offset!r}\n".encode("ascii"))
        finally:
            os.close(fd)
        os.replace(part, path)  # noqa: PTH105 (not Path.replace, which tests kill a memidx in)
    except OSError:  # a disk full, a folder or another user's file at `path` (in /tmp): the
        part.unlink(missing_ok=True)  # part made goes (left, each memidx run left one more)
        return False
    return True


def clock_folders() -> list[Path]:
    """Where the least offset of this boot is noted, each read and written: the user's runtime
    folder as XDG_RUNTIME_DIR names it and as systemd makes it (emptied at each boot), the
    temporary folder as TMPDIR names it and the system's own (the boot id in the file's name).
    A memidx run without XDG_RUNTIME_DIR or TMPDIR (cron, `sudo -u`, a service) read only the
    folders its environment named, missed the note of one run with them, and noted the offset
    after a step since, under which a live memidx's file looked a killed one's: the folders
    named by no environment are written by every memidx."""
    import tempfile  # not at import: read by agents' hooks, which start lean (embed.running)

    from memidx.portable import user_id

    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    named = [Path(runtime)] if runtime else []
    named += [Path(RUNTIME.format(user_id())), Path(tempfile.gettempdir()), Path(SYSTEM_TMP)]
    found = [folder for folder in dict.fromkeys(named) if folder.is_dir()]
    return found or [Path(tempfile.gettempdir())]


def _read_clock(path: Path) -> float | None:
    """The offset noted in `path`: only a regular file of this user's (another's, in a shared
    temporary folder, is no note of this user's memidx), else None."""
    from memidx.portable import OPEN_AS_IS, user_id

    try:
        fd = os.open(path, OPEN_AS_IS)
    except OSError:
        return None
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode) or str(found.st_uid) != user_id():
            return None
        return float(os.read(fd, 64).decode("ascii"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    finally:
        os.close(fd)


def made_at(path: Path) -> float:
    """When `path` was made at the latest (its status change: a write, a rename or a link
    changes it; a copy keeps its source's mtime, never its ctime), in seconds since the epoch."""
    found = path.stat()
    return max(found.st_ctime, found.st_mtime)


def owner_gone(pid: int, made: float) -> bool:
    """Whether the process that named itself by `pid` in a file made at `made` is gone: no
    process has that pid, the one that has it has ended (a zombie holds nothing), or it started
    after the file was made (the pid given again), read on the least offset noted this boot
    (started_after: a wall clock set forward since keeps it). A live pid whose start cannot be
    read (no /proc), or cannot be true (after now: a /proc a container fakes), is taken for the
    owner."""
    from memidx.portable import process_alive

    if pid <= 1:  # init's, or none: never a memidx's
        return False
    if not process_alive(pid):
        return True
    if process_ended(pid):
        return True
    ticks, since_boot = process_started(pid), uptime()
    if ticks is None or since_boot is None or int(ticks) / clock_ticks() > since_boot:
        return False
    least = note_clock(fresh=True)
    return started_after(int(ticks), made, wall=wall_clock(), since_boot=since_boot, least=least)
