"""The process's limits, wherever it runs: POSIX's resource limits, and a fallback where the
system has none (Windows). Beside memidx/portable.py, by the same rule (tests/unit/
test_portability.py): every operating-system-specific call is in one of these modules."""

from __future__ import annotations

# What to do when no descriptor is left: this process's limit (EMFILE), the system's (ENFILE)
FILES_HINT = (
    "raise the open-file limit of the process that runs memidx (`ulimit -n`), then try again"
)
SYSTEM_FILES_HINT = (
    "the system's open-file table is full: close programs that hold many files, or raise its "
    "limit (fs.file-max), then try again"
)


def open_files(wanted: int) -> int:
    """How many descriptors this process may hold, its soft limit raised toward `wanted` first
    (as far as its hard limit allows): a server holds one per client waiting its turn, and
    where the limit is low (256 by default on macOS, or `ulimit -n` in the agent's shell) its
    clients took them all. `wanted` where the system sets no such limit (Windows)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows only
        return wanted
    kind, unlimited = resource.RLIMIT_NOFILE, resource.RLIM_INFINITY
    soft, hard = resource.getrlimit(kind)
    if soft != unlimited and soft < wanted:
        raised = wanted if hard == unlimited else min(wanted, hard)
        try:
            resource.setrlimit(kind, (raised, hard))
            soft = raised
        except (ValueError, OSError):  # above what the system allows (macOS: OPEN_MAX)
            pass
    return wanted if soft == unlimited else soft


def descriptors_short(needed: int = 8) -> int | None:
    """EMFILE (this process's limit, `ulimit -n`) or ENFILE (the system's) when this process
    cannot open `needed` more descriptors now, else None: why SQLite said only "unable to open
    database file" (each connection opens the index, its -wal and its -shm)."""
    import errno
    import os

    held: list[int] = []
    try:
        for _ in range(needed):
            held.append(os.open(os.devnull, os.O_RDONLY))
    except OSError as exc:
        return exc.errno if exc.errno in (errno.EMFILE, errno.ENFILE) else None
    finally:
        for fd in held:
            os.close(fd)
    return None


def open_files_limit() -> int | None:
    """This process's limit of descriptors (its soft `ulimit -n`); None where there is none."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows only
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else soft
