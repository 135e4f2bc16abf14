"""Bring the index to HEAD after git moved it: what every post-* hook runs, and what memidx
runs itself after its own plumbing commits (no hook runs for those)."""

from __future__ import annotations

import sys
from collections.abc import Callable

from memidx.config import Config
from memidx.errors import VECTOR_MODULES
from memidx.index.failures import clear_unchanged, hook_traces, trace_marks
from memidx.index.ownership import keep_out_of_git

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~2 ms
if TYPE_CHECKING:
    from memidx.index.documents import Store


def sync_to_head(config: Config, *, once: bool = False) -> list[str]:
    """Sync the index and start embedding in the background; returns lines to print. `once`
    (a git hook): the notice of an upgrade that waits for room is said once per state."""
    from memidx.haystack.segments import RECORD_READER, RECORD_READER_KEY, segments_changed
    from memidx.index.open import mark_index_built, writable_index
    from memidx.index.store import RecordStore
    from memidx.index.sync import sync
    from memidx.text import display, prose_line

    marks = trace_marks(*hook_traces(config))  # failures until now
    keep_out_of_git(config.state_dir)
    notices: list[str] = []
    # an index whose build is not complete is filled under the creation lock, so a hook that
    # runs while `memidx ingest` or a filing fills it waits, never marking it built meanwhile
    store = writable_index(config, notices.append, fill=_fill)
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
        if once:  # kept as said only now: a hook that fails on the way says none of its lines
            from memidx.memory.upgrade_said import said_once

            notices = said_once(config, store.conn, notices)
    finally:
        store.conn.close()
    clear_unchanged(marks)
    lines = [f"notice: {notice}" for notice in notices]
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
    if (report.written or (records is not None and records.indexed)) and config.hook_embed:
        lines += start_background_embed(config)
    return lines


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


def start_background_embed(config: Config) -> list[str]:
    """Embed new chunks in a detached process, so the git operation does not wait for it; it
    fills an index an agent's hook left unbuilt first (memidx.index.open: a hurried writer
    never fills). Without a model to embed with, a detached `memidx sync` fills such an index."""
    from memidx.embed.installed import model_problem  # lean: not memidx.embed.model

    problem = model_problem(config)
    if problem is None:
        return _detached(config, "vectors not updated", "embed", "--background")
    lines = _detached(config, "index not built", "sync") if index_unbuilt(config) else []
    if not vectors_installed():
        return lines  # installed without the vectors extra (pre-commit's): words only
    return [f"vectors not updated: {problem}", *lines]


def _detached(config: Config, unless: str, *command: str) -> list[str]:
    """Start `memidx <command>` detached, its output appended to .memidx/embed.log; the line
    to say when that log is no file of memidx's (`unless`: what is left undone)."""
    from memidx.git.process import spawn_detached

    config.state_dir.mkdir(parents=True, exist_ok=True)
    log = config.state_dir / "embed.log"
    try:
        spawn_detached([sys.executable, "-m", "memidx", "-C", str(config.root), *command], log)
    except OSError as exc:  # a link or a FIFO at its log (refused: no file of memidx's)
        from memidx.drafts import NOT_OWN, not_own

        if exc.errno not in NOT_OWN:
            raise
        # raised, every post-commit hook said the index could not follow, and a session start
        # lost its digest: the index is in step, only the embed waits
        return [f"{unless}: {not_own(log)}"]
    return []


def index_unbuilt(config: Config) -> bool:
    """Whether the index is missing or its build never completed (as a hurried filing leaves
    it); an index that cannot be read is not this question's: its writer says why."""
    import sqlite3
    from contextlib import closing

    from memidx.errors import MemidxError
    from memidx.index.connection import connect_reader
    from memidx.index.schema import build_problem

    path = config.index_path
    try:
        if not path.exists():
            return True
        if not path.is_file():
            return False  # a folder or a FIFO there: no index to fill (a sync says so)
        if path.stat().st_size == 0:
            return True
        with closing(connect_reader(path)) as conn:
            return build_problem(conn) is not None
    except (MemidxError, sqlite3.Error, OSError):
        return False


def vectors_installed() -> bool:
    """Whether this interpreter can embed: memidx's `vectors` extra is installed."""
    from importlib.util import find_spec

    return all(find_spec(name) is not None for name in VECTOR_MODULES)
