"""What SQLite's and the system's errors of trouble that passes (a full disk, a read-only folder,
a lock, no permission) say to do, by result code and by errno (memidx.index.connection sorts
the errors; the command line and the filing say an OSError's hint from ERRNO_HINTS)."""

from __future__ import annotations

import errno
import sqlite3

from memidx.portable_limits import FILES_HINT, SYSTEM_FILES_HINT

FULL_HINT = "free space on its disk, then try again"
READONLY_HINT = "check the permissions and the mount of its folder, then try again"
IO_HINT = "check the disk and its free space, then try again"
BUSY_HINT = "wait for it to finish, then try again"
LEFT_AS_IT_WAS = "; the index was left as it was"
# SQLite's primary result codes of trouble that passes, and the hint each gets
PASSING = {
    sqlite3.SQLITE_FULL: FULL_HINT,
    sqlite3.SQLITE_IOERR: IO_HINT,
    sqlite3.SQLITE_READONLY: READONLY_HINT,
    sqlite3.SQLITE_PERM: READONLY_HINT,
    sqlite3.SQLITE_CANTOPEN: READONLY_HINT,
    sqlite3.SQLITE_NOMEM: "try again",
    sqlite3.SQLITE_PROTOCOL: BUSY_HINT,
    sqlite3.SQLITE_BUSY: BUSY_HINT,
    sqlite3.SQLITE_LOCKED: BUSY_HINT,
}
ERRNO_HINTS = {
    errno.ENOSPC: FULL_HINT,
    getattr(errno, "EDQUOT", errno.ENOSPC): FULL_HINT,  # no quotas on Windows
    errno.EROFS: READONLY_HINT,
    errno.EACCES: READONLY_HINT,
    errno.EPERM: READONLY_HINT,
    errno.EIO: IO_HINT,
    # no descriptor left: SQLite says "unable to open database file", as for a folder it
    # may not write, and the permissions were blamed
    errno.EMFILE: FILES_HINT,
    errno.ENFILE: SYSTEM_FILES_HINT,
}
CANNOT_WRITE = (sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY)
# SQLite's unix VFS opens no path over 512 bytes, with room for a journal's "-journal" suffix:
# past this, every open fails with "unable to open database file", whatever the permissions.
SQLITE_MAX_PATH_BYTES = 504
LONG_PATH_HINT = (
    "move the memory to a shorter path, or set `index` (MEMIDX_INDEX) to a shorter one outside "
    "the notes folder"
)
MAYBE_FULL = (sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN)
# SQLite's messages, for an error that carries no result code
MESSAGES = (
    ("disk is full", sqlite3.SQLITE_FULL),
    ("disk i/o error", sqlite3.SQLITE_IOERR),
    ("readonly", sqlite3.SQLITE_READONLY),
    ("unable to open", sqlite3.SQLITE_CANTOPEN),
    ("locked", sqlite3.SQLITE_BUSY),
    ("malformed", sqlite3.SQLITE_CORRUPT),
    ("not a database", sqlite3.SQLITE_NOTADB),
)
