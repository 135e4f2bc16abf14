"""Bring the index to HEAD after git moved it: what every post-* hook runs, and what memidx
runs itself after its own plumbing commits (no hook runs for those)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import ExitStack

from memidx.config import Config
from memidx.errors import VECTOR_MODULES
from memidx.index.failures import clear_unchanged, sync_marks
from memidx.index.ownership import keep_out_of_git
from memidx.state_folder import ensure_folder

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~2 ms
if TYPE_CHECKING:
    from pathlib import Path

    from memidx.index.documents import Store


def sync_to_head(config: Config, *, once: bool = False) -> list[str]:
    """Sync the index and start embedding in the background; returns lines to print. `once`
    (a git hook): the notice of an upgrade that waits for room is said once per state."""
    from memidx.haystack.segments import RECORD_READER, RECORD_READER_KEY, segments_changed
    from memidx.index.open import mark_index_built, writable_index
    from memidx.index.store import RecordStore, VectorStore
    from memidx.index.sync import sync
    from memidx.text import display, prose_line

    marks = sync_marks(config)  # failures until now
    keep_out_of_git(config.state_dir)
    notices: list[str] = []
    wait = None  # the upgrade that waits for room, `once`
    filled: list[bool] = []  # this call built the index (new, rebuilt, a build completed)

    def fill(config: Config, store: Store) -> None:
        _fill(config, store)
        filled.append(True)

    # an index whose build is not complete is filled under the creation lock, so a hook that
    # runs while `memidx ingest` or a filing fills it waits, never marking it built meanwhile
    store = writable_index(config, notices.append, fill=fill)
    try:
        report = sync(config, store)
        records = None
        indexed = RecordStore(store.conn).segments()
        outdated = store.get_state(RECORD_READER_KEY) != RECORD_READER  # records read again
        if outdated or segments_changed(config.root, config.notes_path / "haystack", indexed):
            from memidx.haystack.indexing import (
                sync_records,  # the log reader, only when logs changed
            )

            records = sync_records(config, store)
        mark_index_built(config, store)  # every note and every changed segment is in
        if once:  # a wait for room is kept as said once all is done (said_once, below)
            from memidx.memory.upgrade_said import waiting_room

            wait = waiting_room(store, notices)
        made = (VectorStore(store.conn).index_id(), VectorStore(store.conn).forgotten_at())
    finally:
        store.conn.close()
    clear_unchanged(marks)
    scrubbed: list[str] = []  # the vector files of text forgotten here or by what git brought
    if made[1]:
        from memidx.memory.forget_vectors import scrub_forgotten

        scrub_forgotten(config, "forgotten text left the index", scrubbed.append, made)
    # a fill wrote every chunk before the sync, which then found nothing to write: after
    # `rm -rf .memidx` the hook rebuilt the index and left every chunk without a vector
    started = filled or report.written or (records is not None and records.indexed)
    embed = start_background_embed(config, built=True) if started and config.hook_embed else []
    if once:  # only now: a hook that failed on the way (its embed's start too) said none
        from memidx.memory.upgrade_said import said_once

        notices = said_once(config, wait, notices)
    lines = [f"notice: {notice}" for notice in notices] + scrubbed
    lines += [
        f"warning: {display(s.source_ref)}: skipped: {prose_line(s.reason)}" for s in report.skipped
    ]
    lines += [f"warning: {line}" for line in report.warnings()]
    if report.changed:
        lines.append(
            f"index follows {report.source}: {report.written} written, {report.deleted} removed, "
            f"{report.renamed} renamed"
        )
    if records is not None and (records.indexed or records.deleted):
        lines.append(f"records: {records.indexed} indexed, {records.deleted} removed")
    if records is not None:
        lines += records.warnings()
    return lines + embed


def _fill(config: Config, store: Store) -> None:
    from memidx.haystack.indexing import fill_index  # the log reader: only for a new index

    fill_index(config, store)


def after_commit(config: Config, say: Callable[[str], None] | None = None) -> None:
    """What memidx's post-commit hook does, for a commit memidx made with plumbing (no hook
    runs for it): the index follows HEAD, new chunks are embedded in the background. `say`
    hears the notices and warnings (not the routine counts)."""
    for line in sync_to_head(config):
        if say is not None and not line.startswith(("index follows", "records: ")):
            say(line)


FOLLOW_HINT = "once that is fixed (space freed, the lock let go), run `memidx sync`"


def follow_commit(config: Config, say: Callable[[str], None] | None = None) -> str | None:
    """after_commit, for a commit that stands whatever the index does: None once the index
    follows, else why it could not (a full disk, a held lock), for the caller to say with the
    commit: the bare error, with its "try again", had a note remembered twice."""
    import sqlite3

    from memidx.errors import MemidxError

    try:
        after_commit(config, say)
    except (MemidxError, sqlite3.Error, OSError) as exc:
        return exc.message if isinstance(exc, MemidxError) else str(exc)
    return None


def start_background_embed(config: Config, *, built: bool = False) -> list[str]:
    """Embed new chunks in a detached process, so the git operation does not wait for it; it
    fills (or upgrades) an index an agent's hook left first (memidx.index.open: a hurried
    writer never fills, nor upgrades from schema 4). Without a model to embed with, a detached
    `memidx sync` does, one at a time (memidx.memory.fill_sync); `built`: the caller just
    brought the index to HEAD (sync_to_head), so it is not opened again to ask."""
    from memidx.embed.installed import model_problem  # lean: not memidx.embed.model
    from memidx.memory.fill_sync import fill_started

    problem = model_problem(config)
    if problem is None:  # named as the sync is, by a filing: a search waits for it to build
        # the index (memidx.mcp.building), and did not see it before it marked itself
        started = None if built else fill_started
        return _detached(config, "vectors not updated", "embed", "--background", started=started)
    lines = [] if built else _fill_in_background(config)
    if not vectors_installed():
        return lines  # installed without the vectors extra (pre-commit's): words only
    return [f"vectors not updated: {problem}", *lines]


def _fill_in_background(config: Config) -> list[str]:
    """Start a detached `memidx sync` when a hook left the index (index_left) and none started
    runs."""
    from memidx.git.process import reap_detached
    from memidx.memory.fill_sync import fill_lock, fill_running, fill_started, fill_starting

    reap_detached()  # one this process started (an MCP server) and that has ended
    with ExitStack() as held:
        try:
            mine = held.enter_context(fill_starting(config.state_dir))
        except OSError as exc:  # a FIFO or a folder at its lock: raised after the filing,
            from memidx.drafts import NOT_OWN, not_own  # which then failed (file-turn, MCP's)

            if exc.errno not in NOT_OWN:
                raise
            return [f"index not built: {not_own(fill_lock(config.state_dir))}"]
        if not mine or fill_running(config.state_dir) or not index_left(config):
            return []
        return _detached(config, "index not built", "sync", started=fill_started)
    return []  # not reached: the block returns (pyright cannot tell an ExitStack lets through)


def _detached(
    config: Config, unless: str, *command: str, started: Callable[[Path, int], None] | None = None
) -> list[str]:
    """Start `memidx <command>` detached, its output appended to .memidx/embed.log (`started`
    hears its pid); the line to say when that log is no file of memidx's (`unless`: what is
    left undone)."""
    from memidx.git.process import spawn_detached

    ensure_folder(config.state_dir)
    log = config.state_dir / "embed.log"
    try:
        pid = spawn_detached(
            [sys.executable, "-m", "memidx", "-C", str(config.root), *command], log
        )
    except OSError as exc:  # a link or a FIFO at its log (refused: no file of memidx's)
        from memidx.drafts import NOT_OWN, not_own

        if exc.errno not in NOT_OWN:
            raise
        # raised, every post-commit hook said the index could not follow, and a session start
        # lost its digest: what failed to start waits (the embed, or the index's filling,
        # which the next sync or git hook does), the line says what
        return [f"{unless}: {not_own(log)}"]
    if started is not None:
        started(config.state_dir, pid)
    return []


def index_left(config: Config) -> bool:
    """Whether an agent's hook leaves the index to a writer with time for it and files in the
    log alone: it is missing, its build never completed, or it is of a schema too old to write
    as it is (4 or older: readers refuse it too). An index that cannot be read is not this
    question's: its writer says why."""
    import sqlite3
    from contextlib import closing

    from memidx.errors import MemidxError
    from memidx.index.connection import connect_reader
    from memidx.index.schema import build_problem
    from memidx.index.schema_version import READABLE

    path = config.index_path
    try:
        if not path.exists():
            return True
        if not path.is_file():
            return False  # a folder or a FIFO there: no index to fill (a sync says so)
        if path.stat().st_size == 0:
            return True
        with closing(connect_reader(path)) as conn:
            schema = int(conn.execute("PRAGMA user_version").fetchone()[0])
            return schema < READABLE or build_problem(conn) is not None
    except (MemidxError, sqlite3.Error, OSError):
        return False


def vectors_installed() -> bool:
    """Whether this interpreter can embed: memidx's `vectors` extra is installed."""
    from importlib.util import find_spec

    return all(find_spec(name) is not None for name in VECTOR_MODULES)
