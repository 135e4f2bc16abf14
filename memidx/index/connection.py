"""A connection to the index file and its transactions: writers get WAL, a busy timeout and
BEGIN IMMEDIATE; readers open it read-only and need no write access. SQLite's errors are sorted into
damage (the file is broken) and trouble that passes (a full disk, a read-only file system, a
lock, no permission), which must never be taken for damage: the index is left as it was."""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Generator
from contextlib import contextmanager, suppress
from pathlib import Path

from memidx.errors import REBUILD_HINT, IndexBusy, IndexUnavailable, IndexUnusable, MemidxError
from memidx.index.ownership import (
    APPLICATION_ID,
    header_id,
    legacy,
    not_ours,
    refuse_a_file_for_folder,
    refuse_foreign,
    stamp,
)
from memidx.index.schema_version import refuse_newer
from memidx.index.trouble_hints import (
    BUSY_HINT,
    CANNOT_WRITE,
    ERRNO_HINTS,
    FULL_HINT,
    LEFT_AS_IT_WAS,
    LONG_PATH_HINT,
    MAYBE_FULL,
    MESSAGES,
    PASSING,
    SQLITE_MAX_PATH_BYTES,
)
from memidx.notes.words import fold
from memidx.state_folder import ensure_folder

BUSY_TIMEOUT_MS = 5000


def connect(path: Path) -> sqlite3.Connection:
    """Open the index for writing, creating a missing one. A new file is stamped with
    memidx's application id before anything else is written; an existing one must prove it is
    memidx's (NotMemidxIndex, and nothing written) before its journal mode is touched."""
    ensure_folder(path.parent)
    new = _size(path) == 0
    unstamped = not new and header_id(path) != APPLICATION_ID
    uri = f"{path.resolve().as_uri()}?mode=rwc"
    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    try:
        add_fold(conn)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if new:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        elif unstamped:
            _prove_legacy(conn, path)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        if unstamped:
            stamp(conn)  # an index of an earlier memidx: stamped on its first write
    except BaseException:
        conn.close()
        raise
    return conn


def add_fold(conn: sqlite3.Connection) -> None:
    """Give a writer's connection `memidx_fold`, which the triggers that fill the full-text
    index call (memidx.notes.words.fold): a connection without it cannot change a document."""
    conn.create_function("memidx_fold", 1, _fold_value, deterministic=True)


def _fold_value(value: str | bytes | int | float | None) -> str | bytes | int | float | None:
    return fold(value) if isinstance(value, str) else value


def _prove_legacy(conn: sqlite3.Connection, path: Path) -> None:
    """An unstamped database is memidx's only with memidx's tables; reading them must not
    fail for damage (then nothing proves whose it is)."""
    try:
        if int(conn.execute("PRAGMA application_id").fetchone()[0]) == APPLICATION_ID:
            return  # stamped in the -wal, not yet in the file's header
        if legacy(conn):
            return
    except sqlite3.DatabaseError as exc:
        if passing(exc):
            raise
        raise not_ours(path, describe(exc)) from exc
    raise not_ours(path, "an SQLite database without memidx's tables")


def connect_reader(path: Path, *, immutable: bool = False) -> sqlite3.Connection:
    """Open the index read-only, creating nothing where nothing may be written. Where the
    folder can be written, a writer may come at any time, so SQLite's shared memory (-shm)
    keeps this reader's view consistent; in a read-only folder the file is immutable unless
    its -wal holds changes, which a read-only -shm lets SQLite read. `immutable` reads the
    file as it is, with no -wal or -shm (see full_disk_reader)."""
    if not path.is_file():
        refuse_a_file_for_folder(path.parent)  # what a rebuild says, not "rebuild it"
        with suppress(OSError):  # a folder or a FIFO there: a rebuild would refuse it too
            refuse_foreign(path)
        raise IndexUnusable(f"no index at {path}", REBUILD_HINT)
    found = header_id(path) if _size(path) else 0
    if found is None:
        raise not_ours(path, "the file is not an SQLite database")
    query = "mode=ro&immutable=1" if immutable else "mode=ro"
    if not immutable and not os.access(path.parent, os.W_OK):
        if _size(Path(f"{path}-wal")) == 0:
            query = "mode=ro&immutable=1"
        elif not Path(f"{path}-shm").exists():
            raise wal_needs_writer(path)
    uri = f"{path.resolve().as_uri()}?{query}"
    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn


def full_disk_reader(exc: BaseException, path: Path) -> bool:
    """Whether a reader that failed with `exc` may read the file as immutable instead: its
    disk is full (no room for the -shm every WAL reader shares) and its -wal holds nothing, so
    the file alone is the whole index, and no writer can change it without room to log."""
    if not isinstance(exc, sqlite3.Error) or _code(exc) not in MAYBE_FULL:
        return False
    return _size(Path(f"{path}-wal")) == 0 and disk_full(path.parent)


def wal_needs_writer(path: Path) -> IndexUnavailable:
    return IndexUnavailable(
        f"the index at {path} has changes in its write-ahead log ({path.name}-wal) that a "
        "writer must apply first, and its folder is read-only",
        "run `memidx sync` once where the folder can be written, then search here again",
    )


def passing(exc: BaseException) -> bool:
    """Whether `exc` is trouble that passes, never a reason to rebuild the index."""
    if isinstance(exc, sqlite3.Error):
        return _code(exc) in PASSING
    return isinstance(exc, OSError) and exc.errno in ERRNO_HINTS


def trouble(exc: BaseException, path: Path | None, *, write: bool = True) -> MemidxError | None:
    """The one-line error for trouble that passes, or None for damage and anything else."""
    where = "the index" if path is None else f"the index at {path}"
    verb, left = ("written", LEFT_AS_IT_WAS) if write else ("read for now", "")
    if isinstance(exc, OSError):
        hint = ERRNO_HINTS.get(exc.errno or 0)
        if hint is None:
            return None
        name = f" ({exc.filename})" if exc.filename else ""
        return IndexUnavailable(f"{where} cannot be {verb}: {exc.strerror}{name}", hint + left)
    if not isinstance(exc, sqlite3.Error) or _code(exc) not in PASSING:
        return None
    code = _code(exc)
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_PROTOCOL):
        return IndexBusy(f"{where} is locked by another process ({exc})", BUSY_HINT)
    if (short := _no_descriptor(exc, code, where, verb)) is not None:
        return IndexUnavailable(short.message, short.hint + left)
    if path is None:
        return IndexUnavailable(f"{where} cannot be {verb}: {exc}", PASSING[code] + left)
    size = len(os.fsencode(path.resolve()))
    if code == sqlite3.SQLITE_CANTOPEN and size > SQLITE_MAX_PATH_BYTES:
        return IndexUnavailable(
            f"{where} cannot be {verb}: its path is {size} bytes long, more than SQLite opens "
            f"({SQLITE_MAX_PATH_BYTES})",
            LONG_PATH_HINT + left,
        )
    if not write and code in CANNOT_WRITE and not os.access(path.parent, os.W_OK):
        return wal_needs_writer(path)
    if code in MAYBE_FULL and disk_full(path.parent):  # SQLite often says "disk I/O error" then
        return IndexUnavailable(
            f"{where} cannot be {verb}: its disk is full ({exc})", FULL_HINT + left
        )
    return IndexUnavailable(f"{where} cannot be {verb}: {exc}", PASSING[code] + left)


def _no_descriptor(exc: sqlite3.Error, code: int, where: str, verb: str) -> IndexUnavailable | None:
    """The error for SQLite's failure to open a file when the cause is that no descriptor is
    left (EMFILE: this process's limit; ENFILE: the system's), which SQLite does not say."""
    from memidx.portable_limits import descriptors_short, open_files_limit

    if code not in (sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_IOERR):
        return None
    short = descriptors_short()
    if short is None:
        return None
    if short == errno.EMFILE:
        limit = open_files_limit()
        said = "this process has too many files open" + (f" (its limit: {limit})" if limit else "")
    else:
        said = "the system has too many files open"
    return IndexUnavailable(f"{where} cannot be {verb}: {exc}, as {said}", ERRNO_HINTS[short])


def disk_full(folder: Path) -> bool:
    """Whether the file system holding `folder` has (almost) no space left."""
    import shutil  # only on the way to an error

    try:
        return shutil.disk_usage(folder).free < 64 * 1024
    except OSError:
        return False


@contextmanager
def trouble_reported(path: Path, *, write: bool) -> Generator[None]:
    """Turn trouble that passes into its one-line error; damage and the rest pass through."""
    try:
        yield
    except (sqlite3.Error, OSError) as exc:
        found = trouble(exc, path, write=write)
        if found is None:
            raise
        raise found from exc


def _code(exc: sqlite3.Error) -> int:
    """SQLite's primary result code of the error (from its message when it carries none)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF
    text = str(exc).lower()
    return next((found for words, found in MESSAGES if words in text), sqlite3.SQLITE_ERROR)


def describe(exc: sqlite3.Error) -> str:
    """What SQLite's error says about the file, in the user's words."""
    text = str(exc)
    if "not a database" in text:
        return "the file is not an SQLite database"
    if "malformed" in text:
        return "the file is damaged (database disk image is malformed)"
    return text


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


@contextmanager
def transaction(conn: sqlite3.Connection) -> Generator[None]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any error; a held lock is IndexBusy. An index
    a newer memidx upgraded since this connection opened it is NewerIndex, nothing written: a
    process that outlived an upgrade never writes into a schema it does not know."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise IndexBusy(
                "the index is locked by another memidx process",
                "wait for it to finish, then try again",
            ) from exc
        raise
    try:
        refuse_newer(conn)  # under the write lock: no upgrade can come between (~2 us)
        yield
    except BaseException:
        if conn.in_transaction:  # SQLite may have rolled back already (disk full, I/O error)
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


@contextmanager
def snapshot(conn: sqlite3.Connection) -> Generator[None]:
    """One read transaction: every query inside sees the same state of the index, even while
    a hook commits (WAL readers never block writers)."""
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN")
    try:
        yield
    finally:
        conn.execute("COMMIT")
