"""Opening the index: readers get a usable, completely built index or IndexUnusable; writers
get one always (created, upgraded or rebuilt as needed) through the one helper every writer
uses, and only ever replace or move a file that is provably memidx's index. An index a newer
memidx built is NewerIndex to both: never rebuilt at this code's older schema."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from memidx.config import Config
from memidx.errors import REBUILD_HINT, IndexBusy, IndexLeft, IndexUnusable, NewerIndex
from memidx.index.connection import (
    connect,
    connect_reader,
    describe,
    full_disk_reader,
    passing,
    trouble_reported,
)
from memidx.index.documents import Store
from memidx.index.migrations import migrate, upgradable, upgrade_waits
from memidx.index.ownership import (
    check_location,
    keep_out_of_git,
    move_aside,
    not_ours,
    owned,
    refuse_foreign,
    remove_index,
    remove_matrices,
)
from memidx.index.schema import (
    EMPTY,
    OUTDATED,
    build_problem,
    create_schema,
    damage,
    mark_built,
    schema_problem,
)
from memidx.index.schema_version import READABLE, SCHEMA_VERSION, older_index
from memidx.index.upgrade_room import RoomWait, room_wait
from memidx.index.vectors import VectorStore
from memidx.state_folder import ensure_folder, make_above
from memidx.waited_lock import waited_lock

# Seconds a writer waits for the creation lock: a build under way takes it for its whole
# filling, but one stopped with Ctrl-Z or hung held every writer for ever (a post-commit hook
# with it, and the `git commit` that ran it).
LOCK_WAIT = 60.0
# A hurried writer's (an agent's hook, its deadline 1.4 s at SessionEnd): an opening holds the
# lock for milliseconds; longer, an upgrade (the background embed a filing starts upgrades an
# older index), a rebuild or a filling holds it, and the hook, cut off waiting, filed nothing
HURRIED_WAIT = 0.5


def writable_index(
    config: Config,
    notice: Callable[[str], None] | None = None,
    *,
    verify: bool = False,
    fill: Callable[[Config, Store], None] | None = None,
    hurried: bool = False,
) -> Store:
    """The index for writing, made usable first (see open_store): `notice` hears of a rebuild
    or an upgrade; a `hurried` writer (an agent's hook) leaves the upgrade of schema 5 to the
    next writer with time for it (see upgrade_waits), and gets IndexLeft for an index it
    cannot write as it is or another process holds (HURRIED_WAIT). With `fill`, an index not
    completely built (new, rebuilt, or a build that was interrupted) is filled by it first, by
    one process while the others wait (the same lock as creation), and marked built; never
    by a hurried writer (IndexLeft: filling a large memory takes seconds). Without, the
    caller brings the whole index in step and calls mark_index_built."""
    path = config.index_path
    creating = not path.exists() or path.stat().st_size == 0
    check_location(config, ask_git=verify or creating)
    if creating and path.resolve().is_relative_to(config.state_dir.resolve()):
        keep_out_of_git(config.state_dir)  # a later `git add -A` must not commit it
    elif creating and not path.resolve().is_relative_to(config.root.resolve()):
        make_above(path.parent)  # kept outside the memory: its folders, never the memory's
    if creating and hurried and fill is not None:
        raise _fill_left(path)  # not even made: the writer that fills it makes it
    store, said = open_store(path, write=True, verify=verify, hurried=hurried)
    if said and notice is not None:
        notice(said)
    if fill is None or build_problem(store.conn) is None:
        return store
    if hurried:
        store.conn.close()
        raise _fill_left(path)
    try:
        with _creation_lock(path, hurried=hurried), trouble_reported(path, write=True):
            if build_problem(store.conn) is not None:
                fill(config, store)
                mark_built(store.conn)
    except BaseException:
        store.conn.close()
        raise
    return store


def mark_index_built(config: Config, store: Store) -> None:
    """Record that the whole index is in step (after a writer without `fill` brought every note
    and record in): readers stop refusing an index whose build was interrupted."""
    with trouble_reported(config.index_path, write=True):
        mark_built(store.conn)


def open_store(
    path: Path, *, write: bool, verify: bool = False, hurried: bool = False
) -> tuple[Store, str | None]:
    """Open the index. Writers create a missing one and rebuild an unusable one (with a one-line
    notice), one process at a time; `verify` also reads every page (PRAGMA quick_check) to
    find damage the quick checks miss. Readers get IndexUnusable, never an empty result that
    hides a broken or half-built index. A full disk, a read-only file system or a lock is a
    one-line error that leaves the index as it was; a file memidx cannot prove it made is
    NotMemidxIndex, never replaced. A `hurried` writer writes an index of schema 5 as it is."""
    if not write:
        with trouble_reported(path, write=False):
            return Store(_open_reader(path)), None
    refuse_foreign(path)  # before the lock file: nothing is created next to another's file
    ensure_folder(path.parent)
    with _creation_lock(path, hurried=hurried), trouble_reported(path, write=True):
        return _open_writer(path, verify, hurried)


def _open_reader(path: Path) -> sqlite3.Connection:
    try:
        return _checked_reader(path, immutable=False)
    except sqlite3.Error as exc:
        if not full_disk_reader(exc, path):
            raise
    return _checked_reader(path, immutable=True)  # a search needs no room on the disk


def _checked_reader(path: Path, *, immutable: bool) -> sqlite3.Connection:
    conn = connect_reader(path, immutable=immutable)
    try:
        problem = _reader_problem(conn, path)
        # an empty file holds nothing to lose: the next writer fills it (run ingest, not mv)
        if problem not in (None, EMPTY) and not owned(conn, path):
            raise not_ours(path, problem)
    except BaseException:
        conn.close()
        raise
    if problem is not None:
        older = upgradable(conn) if problem.startswith(OUTDATED) else None
        conn.close()
        if older is not None:
            raise older_index(path, older)
        raise IndexUnusable(f"the index at {path} is unusable: {problem}", REBUILD_HINT)
    return conn


def _reader_problem(conn: sqlite3.Connection, path: Path) -> str | None:
    """What keeps a reader from this index, or None; NewerIndex for a newer memidx's index,
    which is no reason to rebuild it (never REBUILD_HINT, whose ingest would refuse it)."""
    try:
        return schema_problem(conn, path, oldest=READABLE) or build_problem(conn)
    except NewerIndex:
        if not owned(conn, path):
            return "its schema version is unknown"  # another program's file, never ours
        raise


def _open_writer(path: Path, verify: bool, hurried: bool) -> tuple[Store, str | None]:
    """Open, upgrade or rebuild the index; runs under the creation lock."""
    conn, problem, said, wait = _inspect(path, verify, hurried)
    if conn is not None and problem is None:
        store = Store(conn)
        store.room_wait = wait
        return store, said
    if conn is not None and problem == EMPTY:
        create_schema(conn)  # a new file, or one memidx stamped and never filled
        remove_matrices(path, {VectorStore(conn).index_id()})  # a deleted index's: not this one's
        return Store(conn), None
    if conn is not None:
        conn.close()
    assert problem is not None
    said = f"rebuilding the index at {path}: {problem}"
    if problem.startswith(OUTDATED):
        remove_index(path)  # intact and provably memidx's: nothing in it the notes lack
    else:
        said += f"; the damaged file was moved to {move_aside(path)}"
    conn = connect(path)
    try:
        create_schema(conn)
    except BaseException:
        conn.close()
        raise
    return Store(conn), said


def _upgrade_notice(path: Path, upgraded: int | None, wait: RoomWait | None) -> str | None:
    """The upgrade done, or the one that waits for room on the disk (said by the command that
    skipped it, once: a hurried writer skips it for want of time, and says nothing)."""
    if upgraded is not None:
        return f"upgraded the index at {path} from schema {upgraded} to {SCHEMA_VERSION}"
    if wait is None:
        return None
    return (
        f"{wait.line()}: the index at {path} is written at schema {READABLE} until then "
        "(free space on that disk; the next writer upgrades it)"
    )


def _inspect(
    path: Path, verify: bool, hurried: bool
) -> tuple[sqlite3.Connection | None, str | None, str | None, RoomWait | None]:
    """The writer's connection, what makes the index unusable, the notice of its upgrade
    (done, or waiting for room) and the wait for room it found. Damage SQLite finds while
    opening is a problem without a connection: the file is provably memidx's by then (connect
    checks first), so it may be moved aside. A hurried writer gets IndexLeft for an index it
    cannot write as it is."""
    conn: sqlite3.Connection | None = None
    try:
        conn = connect(path)
        # the room an upgrade from schema 5 needs, asked once (it was asked up to three
        # times, each by allocating it where the disk would not say its free space); the
        # VACUUM after an upgrade asks its own (memidx.index.migrations._reclaim)
        wait = None if hurried else room_wait(conn)
        waits = upgrade_waits(conn, hurried=hurried, room=wait is None)  # then written at
        if hurried and not waits:  # schema 5, as read
            _refuse_older(conn, path)
        upgraded = None if waits else migrate(conn)
        said = None if hurried else _upgrade_notice(path, upgraded, wait)
        problem = schema_problem(conn, path, oldest=READABLE if waits else SCHEMA_VERSION)
        if problem is None and verify:
            problem = damage(conn)
    except sqlite3.DatabaseError as exc:
        if conn is not None:
            conn.close()
        if passing(exc):
            raise  # a full disk or a lock says nothing about the file: left as it was
        return None, describe(exc), None, None
    except BaseException:
        if conn is not None:
            conn.close()
        raise
    return conn, problem, said, wait


def _refuse_older(conn: sqlite3.Connection, path: Path) -> None:
    """IndexLeft for an index of schema 4 or older: its upgrade makes the full-text index
    anew and copies every vector (seconds on a large one), which cut off an agent's hook at
    its deadline, rolled back, with nothing filed; a later writer upgrades it. One older than
    any upgrade (schema 1, or none on an earlier memidx's tables) is left to a later writer's
    rebuild the same way: the hook removed and made it anew, its vectors gone with it."""
    found = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if found >= READABLE or (found == 0 and conn.execute(_ANY_TABLE).fetchone() is None):
        return  # readable as it is, or a new file the writer makes at once
    if upgradable(conn) is None:
        raise IndexLeft(
            f"the index at {path} is of schema {found}: its rebuild at {SCHEMA_VERSION} is left "
            "to a writer with time for it",
            "run `memidx sync` once: it rebuilds the index from the notes and the log",
        )
    raise IndexLeft(
        f"the index at {path} is of schema {found}: its upgrade to {SCHEMA_VERSION} is left "
        "to a writer with time for it",
        "run `memidx sync` once: it upgrades the index in place, keeping its vectors",
    )


_ANY_TABLE = "SELECT 1 FROM sqlite_master WHERE type = 'table' LIMIT 1"


def _fill_left(path: Path) -> IndexLeft:
    """A hurried writer's on an index not built (missing, new, half built): filling every note
    and record took a large memory's seconds, past an agent's hook deadline, rolled back with
    nothing filed, at every hook after it too; the background embed a filing starts fills it."""
    return IndexLeft(
        f"the index at {path} is not built: its filling is left to a writer with time for it",
        "run `memidx sync` once: it builds the index from the notes and the log",
    )


def _creation_lock(path: Path, *, hurried: bool = False) -> AbstractContextManager[None]:
    """The creation lock of the index at `path`, waited for LOCK_WAIT seconds at most
    (IndexBusy), a hurried writer's HURRIED_WAIT (IndexLeft: it files in the log alone)."""
    holders = "an ingest or a rebuild of the index: a long one, or one stopped or hung"
    if hurried:
        return waited_lock(_lock_path(path), HURRIED_WAIT, holders, IndexLeft)
    return waited_lock(_lock_path(path), LOCK_WAIT, holders, IndexBusy)


def _lock_path(index: Path) -> Path:
    """The lock file next to the index: its creation, rebuild and first filling."""
    return Path(f"{index}.lock")
