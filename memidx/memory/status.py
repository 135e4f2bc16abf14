"""Gather what `memidx status` reports: notes, index, drift, uncommitted notes, hook failures."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from memidx.config import Config
from memidx.embed.running import RESTARTS, cut_off, cut_off_runs
from memidx.errors import MemidxError, NewerIndex
from memidx.git.left_lock import LeftLock, left_lock
from memidx.git.repo import GitRepo
from memidx.git.underway import git_dir
from memidx.haystack.damage import recorded, torn_line
from memidx.haystack.record_drift import record_drift
from memidx.index.connection import disk_full
from memidx.index.drift import Drift
from memidx.index.failures import HookFailure, hook_traces, last_failure, traces
from memidx.index.head import behind_head
from memidx.index.note_rows import skips_not_utf8
from memidx.index.store import Skip, VectorStore, open_store
from memidx.index.sync import NOTE, drift_of, note_source, settings_changed
from memidx.index.upgrade_room import RoomWait, room_wait
from memidx.memory.archives_left import archives_left, torn_kept
from memidx.memory.mcp_record import SharedServer, shared_server
from memidx.memory.pending_elsewhere import left_aside
from memidx.memory.pending_status import PendingShown, pending_shown
from memidx.memory.pull_line import open_pull_line
from memidx.notes.note import is_note_path
from memidx.remedies import run_hint

MOVE_WAIT = 2.0  # seconds status waits for memidx's move of HEAD (it holds the lock ms)


@dataclass(slots=True)
class Status:
    """A snapshot of the memory's health."""

    source: str
    commit: str | None
    notes: int
    index_path: str
    index_bytes: int
    index_problem: str | None = None
    index_remedy: str = "run `make ingest`"  # what the problem's error says to do
    index_newer: bool = False  # the problem: a newer memidx built the index (NewerIndex)
    documents: int = 0
    indexed_commit: str | None = None
    indexed_at: str | None = None
    drift: Drift | None = None
    skipped: list[Skip] = field(default_factory=list[Skip])
    uncommitted: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])
    moving_head: bool = False  # memidx's move of HEAD under way: git's index not at HEAD yet
    entry_edit: int | None = None  # moving_head's lock is a change of one entry (its shell's pid)
    pending_notes: list[PendingShown] = field(default_factory=list[PendingShown])  # remember's
    moved_aside: list[str] = field(default_factory=list[str])  # pending_elsewhere.left_aside
    hook_failure: HookFailure | None = None
    kinds: dict[str, int] = field(default_factory=dict[str, int])
    segments_changed: tuple[str, ...] = ()
    segments_vanished: dict[str, int] = field(default_factory=dict[str, int])
    torn: list[str] = field(default_factory=list[str])  # `<segment>: ...` as last read
    torn_committed: list[str] = field(default_factory=list[str])  # of those, in HEAD as on disk
    damaged: list[str] = field(default_factory=list[str])  # `<segment>@<offset>: ...`
    model: str = ""
    chunks: int = 0
    chunks_with_vectors: int = 0
    embed_failure: HookFailure | None = None
    embed_cut_off: int | None = None  # the pid of a background embed killed mid-run (0: unknown)
    embed_cut_off_runs: int = 0  # background embeds cut off in a row without embedding anything
    agent_failure: HookFailure | None = None  # agents' hooks fail open: shown, not unhealthy
    pull_failure: HookFailure | None = None  # a late pull not put back for: shown, not unhealthy
    # of agent hooks that found no memory (a -C naming no folder): one trace for the user
    agent_failure_no_memory: HookFailure | None = None
    agent_trace_no_memory: str = ""
    archives_left: int = 0  # transcripts hooks began to archive before compaction, unfinished
    archives_torn: list[Path] = field(default_factory=list[Path])  # torn copies kept aside
    behind: str | None = None
    memory: str = ""  # the memory's root, and how it was chosen (memidx.config.FOUND_BY)
    found_by: str = "flag"
    mcp_server: SharedServer | None = None  # the memory's shared MCP server, as recorded
    unwritable: str | None = None  # READ_ONLY or FULL: every command that writes fails now
    upgrade_waits: RoomWait | None = None  # the upgrade from schema 5 waits for room
    # memidx's git hooks missing or not its current shims (set by the CLI: githooks.outdated)
    hooks_outdated: list[str] = field(default_factory=list[str])
    git_lock: LeftLock | None = None  # a git lock left behind (blocks: every git fails)
    # what a killed memidx moved aside in the git folder and left (memidx.git.folder_asides)
    git_asides: list[str] = field(default_factory=list[str])
    git_written: list[str] = field(default_factory=list[str])  # those of them a git's lock

    @property
    def embed_restarts_stopped(self) -> bool:
        """Session starts no longer restart the background embed (memidx.embed.running)."""
        return self.embed_cut_off_runs >= RESTARTS

    @property
    def healthy(self) -> bool:
        drifted = self.drift is None or self.drift.total > 0 or bool(self.segments_changed)
        broken = self.index_problem is not None or bool(self.damaged)
        # every git command of the clone fails; a next-index lock fails only a `git commit
        # <paths>` run by a git given its pid (memidx.git.left_lock.NEXT_INDEX): named, not stuck
        stuck = self.git_lock is not None and self.git_lock.blocks
        return not broken and not drifted and not stuck and self.hook_failure is None


def no_memory_trace(config: Config) -> Path | None:
    """Where the agent hooks that found no memory leave their line (memidx.agents.runner: a
    `-C DIR` naming no folder, one the memory was moved from): every memory's status shows
    its last, else a hook that names this memory's old place failed unseen at every turn."""
    from memidx.errors import ConfigError
    from memidx.locations import user_cache_dir

    try:
        return user_cache_dir() / config.agent_hook_error_path.name
    except ConfigError:  # no home: nowhere to look
        return None


def gather(config: Config, *, wait: float = MOVE_WAIT, tidy: bool = True) -> Status:
    """Look at the notes source, the index and the hook trace; change nothing but, `tidy`, a
    late pull's trace all done with (removed: memidx.memory.pull_line; under its lock, which
    a look that never waits, the MCP server's, does not take). `wait`: how long the look at
    uncommitted notes waits for a move of HEAD memidx is making (0: none)."""
    source = note_source(config)
    files = source.files()
    path = config.index_path
    size = sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())
    status = Status(source.label, source.commit, len(files), str(path), size)
    status.memory, status.found_by = str(config.root), config.found_by
    status.index_remedy = run_hint(config.root, "ingest")  # `make ingest` only with its Makefile
    # git's folder, asked of git once (the lock left, the move under way)
    folder, state = (git_dir(config.root) if config.in_git else None), config.state_dir
    status.unwritable, status.git_lock = unwritable(config), _left(config, status, folder)
    status.hook_failure = last_failure(*hook_traces(config))
    status.agent_failure, status.pull_failure = (
        last_failure(*traces(config.root, config.agent_hook_error_path)),
        open_pull_line(config, tidy=tidy),  # a line done with is not shown
    )  # fmt: skip
    if (trace := no_memory_trace(config)) is not None:  # a hook of this memory moved away
        status.agent_failure_no_memory = last_failure(trace)
        status.agent_trace_no_memory = str(trace)
    status.mcp_server, status.archives_left, status.archives_torn = (
        shared_server(config), archives_left(state), torn_kept(state)
    )  # fmt: skip
    status.embed_cut_off, status.embed_cut_off_runs = cut_off(state), cut_off_runs(state)
    status.moving_head, status.entry_edit, changed = _changed(config, wait, folder)
    status.uncommitted = [
        (code, ref) for code, ref in changed if is_note_path(ref, config.notes_dir)
    ]
    status.pending_notes = pending_shown(config)
    status.moved_aside = left_aside(config)
    try:
        store, _ = open_store(path, write=False)
    except MemidxError as exc:
        status.index_problem = exc.message
        status.index_remedy = exc.hint or status.index_remedy
        status.index_newer = isinstance(exc, NewerIndex)
        return status
    try:
        status.documents = store.count()
        status.kinds = store.kinds()
        status.indexed_commit = store.get_state("indexed_commit") or None
        status.indexed_at = store.get_state("indexed_at")
        status.drift = drift_of(store, files, reread=settings_changed(store, config) is not None)
        skipped = [
            *store.skips(NOTE).values(),
            *skips_not_utf8(source.names_not_utf8, config.notes_dir),
        ]
        status.skipped = sorted(skipped, key=lambda s: s.source_ref)
        records = record_drift(config, store, deep=False)
        status.segments_changed = records.changed_segments
        status.segments_vanished = dict(records.vanished)
        torn, status.damaged = recorded(store)
        status.torn = [torn_line(ref, size) for ref, size in torn.items()]
        committed = _committed(config, torn, {ref for _, ref in changed})
        status.torn_committed = [torn_line(ref, torn[ref]) for ref in committed]
        status.model = config.model
        status.chunks, status.chunks_with_vectors, _ = VectorStore(store.conn).counts(config.model)
        status.behind = behind_head(config, store)
        status.upgrade_waits = room_wait(store.conn)
    finally:
        store.conn.close()
    status.embed_failure = last_failure(config.embed_error_path)
    return status


def _changed(
    config: Config, wait: float, folder: Path | None
) -> tuple[bool, int | None, list[tuple[str, str]]]:
    """Whether memidx is moving HEAD (moving_head), the pid of its shell when that lock is a
    change of one entry instead (a take-out or put-back: said as such), and git's changes,
    none while it holds git's index. `folder`: git's folder of the clone (git_dir's)."""
    if not config.in_git:
        return False, None, []
    if moving_head(folder, wait):  # HEAD's move, not the person's changes
        from memidx.git.killed_edit import entry_editor

        return True, entry_editor(config.root), []
    return False, None, GitRepo(config.root).uncommitted(config.notes_dir)


def moving_head(folder: Path | None, wait: float) -> bool:
    """Whether memidx holds git's index lock for a move of HEAD (a remember, forget, share
    or haystack commit) after `wait` seconds: between HEAD's move and git's index taking it,
    `git status` read the move as the person's change (a remembered note `D `, staged for
    deletion, "`git commit -a` would forget it"; a forgotten one `A `)."""
    import time

    from memidx.git.move_script import held_by_memidx

    if folder is None:
        return False
    until = time.monotonic() + wait
    while held_by_memidx(folder / "index.lock"):
        if time.monotonic() >= until:
            return True
        time.sleep(0.02)
    return False


def _left(config: Config, status: Status, folder: Path | None) -> LeftLock | None:
    """A git lock left behind in git's `folder`; what a killed memidx moved aside there, and
    which of those hold what a git wrote, set in `status`."""
    from memidx.git.folder_asides import asides_left, git_written

    if folder is None:
        return None
    asides = asides_left(folder)
    status.git_asides = [str(path) for path in asides]
    status.git_written = [str(path) for path in asides if git_written(path)]
    return left_lock(config.root, folder)


def _committed(config: Config, segments: Iterable[str], changed: set[str]) -> list[str]:
    """The segments HEAD holds as they are on disk: a torn tail in one is in git, where no
    writer moves it aside (a committed segment is never changed)."""
    if not config.in_git:
        return []
    repo = GitRepo(config.root)
    return [ref for ref in segments if ref not in changed and repo.has("HEAD", ref)]


READ_ONLY = "read-only"
FULL = "full"


def unwritable(config: Config) -> str | None:
    """Why the memory cannot be written now (READ_ONLY, FULL), or None: until it can, every
    command that writes (sync, reconcile, embed, a filing) fails as the hooks did."""
    folders = {
        _existing(p) for p in (config.state_dir, config.index_path.parent, config.notes_path)
    }
    if not all(os.access(folder, os.W_OK) for folder in folders):
        return READ_ONLY
    return FULL if any(map(disk_full, folders)) else None


def _existing(path: Path) -> Path:
    """`path`, or its nearest folder that exists (where it would be made)."""
    while not path.is_dir() and path.parent != path:
        path = path.parent
    return path
