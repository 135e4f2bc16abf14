"""Opening the index: readers get a usable index or IndexUnusable; writers get one always,
created, upgraded or rebuilt as needed, through the one helper every writer uses."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memidx.config import Config
from memidx.errors import REBUILD_HINT, IndexUnusable
from memidx.index.connection import connect
from memidx.index.documents import Store
from memidx.index.schema import (
    EMPTY,
    SCHEMA_VERSION,
    create_schema,
    damage,
    migrate,
    schema_problem,
)
from memidx.portable import file_lock


def writable_index(
    config: Config,
    notice: Callable[[str], None] | None = None,
    *,
    verify: bool = False,
    fill: Callable[[Config, Store], None] | None = None,
) -> Store:
    """The index for writing, made usable first (see open_store): `notice` hears of a rebuild
    or an upgrade. With `fill`, an index never filled (new or rebuilt) is filled by it first,
    by one process while the others wait (the same lock as creation)."""
    store, said = open_store(config.index_path, write=True, verify=verify)
    if said and notice is not None:
        notice(said)
    if fill is not None and store.get_state("indexed_at") is None:
        with file_lock(_lock_path(config.index_path)):
            if store.get_state("indexed_at") is None:
                fill(config, store)
    return store


def open_store(path: Path, *, write: bool, verify: bool = False) -> tuple[Store, str | None]:
    """Open the index. Writers create a missing one and rebuild an unusable one (with a one-line
    notice), one process at a time; `verify` also reads every page (PRAGMA quick_check) to
    find damage the quick checks miss. Readers get IndexUnusable, never an empty result that
    hides a broken index."""
    if not write:
        conn = connect(path, create=False)
        problem = schema_problem(conn, path)
        if problem is not None:
            conn.close()
            raise IndexUnusable(f"the index at {path} is unusable: {problem}", REBUILD_HINT)
        return Store(conn), None
    path.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(_lock_path(path)):  # creation and rebuild are never concurrent
        try:
            conn = connect(path, create=True)
        except IndexUnusable as exc:
            problem: str | None = exc.message.rpartition(": ")[2]
        else:
            upgraded = migrate(conn)
            problem = schema_problem(conn, path)
            if problem is None and upgraded is not None:
                notice = f"upgraded the index at {path} from schema {upgraded} to {SCHEMA_VERSION}"
                return Store(conn), notice
            if problem is None and verify:
                problem = damage(conn)
            if problem is None:
                return Store(conn), None
            if problem == EMPTY:
                create_schema(conn)
                return Store(conn), None
            conn.close()
        remove_index(path)
        conn = connect(path, create=True)
        create_schema(conn)
        return Store(conn), f"rebuilding the index at {path}: {problem}"


def remove_index(path: Path) -> None:
    """Delete the index and everything derived from it (the matrix files of its vectors)."""
    import shutil  # rarely needed: not worth its import on every start

    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    shutil.rmtree(f"{path}-vectors", ignore_errors=True)


def _lock_path(index: Path) -> Path:
    """The lock file next to the index: its creation, rebuild and first filling."""
    return Path(f"{index}.lock")
