"""The one orchestrator: bring the index in step with the notes source and say what changed."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime

from memidx.config import Config
from memidx.errors import IndexBusy
from memidx.frozen import replace
from memidx.git.history import step_or_none
from memidx.git.refs import read_head
from memidx.git.repo import GitRepo
from memidx.index import added as adds
from memidx.index import forgotten_notes as forgets
from memidx.index.drift import Drift, SourceFile, compare, from_changes, note_paths
from memidx.index.note_rows import NOTE, note_document, skips_not_utf8, symlink_reason
from memidx.index.sources import GitSource, WorktreeSource
from memidx.index.store import Skip, Store, VectorStore, transaction
from memidx.index.sync_report import SyncReport
from memidx.notes.chunks import split_document
from memidx.notes.note import NoteError, parse_note, too_large

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~2 ms
if TYPE_CHECKING:
    from memidx.index.sources import NoteSource
    from memidx.progress import Progress

ATTEMPTS = 5  # plans made again when other writers keep changing the index meanwhile
SETTINGS = "indexed_settings"  # state key: the settings that decide what is indexed and how


def note_source(config: Config, commit: str | None = None) -> NoteSource:
    """The notes at HEAD (or `commit`) in git, else the notes folder on disk."""
    if not config.in_git:
        return WorktreeSource(config.root, config.notes_dir, config.max_note_bytes)
    repo = GitRepo(config.root)
    head = commit if commit is not None else repo.head()
    return GitSource(repo, head, config.notes_dir, config.max_note_bytes)


def drift_of(store: Store, files: Mapping[str, SourceFile], *, reread: bool = False) -> Drift:
    """How the index differs from the source's files, without changing anything; with
    `reread` (the settings changed), every note and every skipped file is to be read again."""
    indexed, skipped = store.document_states(NOTE), store.skips(NOTE)
    if not reread:
        return compare(files, indexed, skipped)
    drift = compare(files, indexed, {})
    return replace(
        drift,
        stale=tuple(sorted(ref for ref in files if ref in indexed)),
        gone_skips=tuple(sorted(ref for ref in skipped if ref not in files)),
    )


NOTE_READER = 13  # raised when a file reads differently (all notes read again): 2 YAML 1.2
# booleans; 3 one Markdown scanner; 4 odd YAML, conflicts, caps; 5 a `---` opening a note may be
# a horizontal rule; 6 `*.MD` names are notes; 7 a text time in `created` stored in UTC; 8 a
# note of front matter alone at its `title:`; 9 no private span indexed; 10 a value private by
# where YAML read it, no private created/lang; 11 a span a stand-in; 12 own `␡`s; 13 no U+FE0E


def settings_of(config: Config) -> str:
    """The settings an index was built with: another notes folder, size limit or note reader
    changes what is indexed, so the whole index is checked again."""
    return (
        f"notes_dir={config.notes_dir}; max_note_bytes={config.max_note_bytes}; "
        f"note_reader={NOTE_READER}"
    )


def settings_changed(store: Store, config: Config) -> str | None:
    """The settings the index was built with when they differ from the current ones, else
    None (also for an index from before memidx recorded them)."""
    built = store.get_state(SETTINGS)
    return built if built is not None and built != settings_of(config) else None


def reconcile(
    config: Config,
    store: Store,
    source: NoteSource | None,
    *,
    fix: bool,
    progress: Progress | None = None,
) -> SyncReport:
    """Compare the index with the source (None: HEAD's notes); with fix, repair what differs."""

    def attempt() -> SyncReport:
        base = _base(store)
        notes = _source_after_base(config, source)
        files = notes.files()
        drift = drift_of(store, files, reread=settings_changed(store, config) is not None)
        report = SyncReport(notes.label, notes.commit, drift)
        plan = _full_adds(notes) if fix else None
        run = _Run(config, store, notes, report, progress=progress, base=base, history=plan)
        if fix:
            moved = [new for _, new in drift.renamed]  # read: a title may come from the file name
            gone = forgets.forgotten_since(config, base, notes.commit, report)  # other settings
            run.apply([files[ref] for ref in (*drift.missing, *drift.stale, *moved)], gone)
        return run.report

    return _until_applied(attempt)


def sync(config: Config, store: Store, progress: Progress | None = None) -> SyncReport:
    """Bring the index to the notes at HEAD. When the index mirrors a commit git still has,
    only the paths that differ between that commit and HEAD are read (`git diff-tree`), so a
    one-note commit reads one note; otherwise the whole tree is compared."""
    if not config.in_git:
        return reconcile(config, store, None, fix=True, progress=progress)
    repo, folder = GitRepo(config.root), config.notes_dir

    def attempt() -> SyncReport:
        # the indexed commit, then HEAD, at every attempt: a writer (a checkout's hook) that
        # moved the index on after this one read HEAD makes the apply plan again, and HEAD
        # read again then is at least the one that writer indexed, never an older one
        indexed = _base(store)
        head = read_head(config.root) or repo.head()
        source = GitSource(repo, head, config.notes_dir, config.max_note_bytes)
        same_settings = settings_changed(store, config) is None
        dated = store.get_state(adds.ADDS_COMMIT) == head
        if same_settings and indexed == head and head is not None and dated:
            return SyncReport(source.label, head)
        found = None
        if same_settings and indexed and head and store.get_state("indexed_source") == "git":
            found = step_or_none(repo, indexed, head, config.notes_dir)
        if found is None or indexed is None:  # a new index, a commit git lost, other settings
            return reconcile(config, store, None, fix=True, progress=progress)
        changes, step = found
        plan = adds.step_plan(store.conn, repo, indexed, step, changes, folder=folder)
        paths = note_paths(changes, folder)
        drift, to_read = from_changes(
            changes, folder, store.states_of(NOTE, paths), store.skips_of(NOTE, paths)
        )
        report = SyncReport(source.label, head, drift)
        run = _Run(config, store, source, report, progress=progress, base=indexed, history=plan)
        run.apply(to_read, forgets.forgotten_notes(repo, indexed, step, report))
        report.skipped += skips_not_utf8((c.new_path for c in changes if c.new_path), folder)
        return run.report

    return _until_applied(attempt)


def ingest(
    config: Config, store: Store, source: NoteSource | None, progress: Progress | None = None
) -> SyncReport:
    """Read every note of the source (None: the notes at HEAD) again and make the index
    mirror it exactly."""

    def attempt() -> SyncReport:
        base = _base(store)
        notes = _source_after_base(config, source)
        files = notes.files()
        report = SyncReport(notes.label, notes.commit, drift_of(store, files))
        run = _Run(config, store, notes, report, progress=progress, base=base)
        run.history = _full_adds(notes)
        run.apply(sorted(files.values(), key=lambda file: file.ref))
        report.skipped += skips_not_utf8(notes.names_not_utf8, config.notes_dir)
        return report

    report = _until_applied(attempt)
    with transaction(store.conn):  # the newer-schema guard: an upgrade since is not written
        store.conn.execute("INSERT INTO documents_fts(documents_fts) VALUES ('optimize')")
    return report


class _Replan(Exception):
    """Another writer changed the index between planning a run and applying it."""


def _base(store: Store) -> str | None:
    """The commit the index mirrors: what a plan is made against, checked again on applying."""
    return store.get_state("indexed_commit") or None


def _source_after_base(config: Config, given: NoteSource | None) -> NoteSource:
    """The one given, else the notes at HEAD read after the indexed commit: a hook indexing a
    newer HEAD before the run applies makes it plan again, at that HEAD (read before, the run
    would take the index back behind HEAD, and no failure would tell)."""
    return given if given is not None else note_source(config)


def _until_applied(attempt: Callable[[], SyncReport]) -> SyncReport:
    for _ in range(ATTEMPTS):
        try:
            return attempt()
        except _Replan:
            continue
    raise IndexBusy(
        "other memidx processes kept changing the index while this one planned", "try again"
    )


def _full_adds(source: NoteSource) -> adds.AddsPlan:
    """Every add of the source's history: the dates of notes without `created`."""
    if isinstance(source, GitSource):
        return adds.full_plan(source.repo, source.commit, source.notes_dir)
    return adds.full_plan(None, None, "")


class _Run:
    """One change of the index: what it reads from and what it reports."""

    __slots__ = ("base", "config", "dates", "history", "progress", "rechunk", "report",
                 "source", "store")  # fmt: skip

    def __init__(
        self,
        config: Config,
        store: Store,
        source: NoteSource,
        report: SyncReport,
        *,
        progress: Progress | None,
        base: str | None,  # the indexed commit the plan was made against
        history: adds.AddsPlan | None = None,  # how the history's adds change (None: not at all)
    ) -> None:
        self.config = config
        self.store = store
        self.source = source
        self.report = report
        self.progress = progress
        self.base = base
        self.history = history
        self.dates = adds.AddedDates(store.conn)
        # another reader built the index: it may have chunked rows that read the same otherwise
        self.rechunk = settings_changed(store, config) is not None

    def apply(self, to_read: Sequence[SourceFile], forgotten: Sequence[str] = ()) -> None:
        """Apply the report's drift and (re)read `to_read`, all in one transaction (the notes
        `forgotten` removed with their vectors); _Replan when another writer moved the index on
        after this run read it."""
        drift, store = self.report.drift, self.store
        with transaction(store.conn):
            if _base(store) != self.base:
                raise _Replan
            for old, new in drift.renamed:
                store.rename(NOTE, old, new)
            texts = forgets.their_texts(store, forgotten)
            store.delete(NOTE, drift.orphaned)
            store.clear_skips(NOTE, (*drift.gone_skips, *(old for old, _ in drift.renamed)))
            self.report.renamed, self.report.deleted = len(drift.renamed), len(drift.orphaned)
            dated = (
                set[str]() if self.history is None else adds.apply_plan(store.conn, self.history)
            )
            if dated is None:
                self.dates.load_all()
            self.read(to_read)
            if dated is None or dated:  # rows not read again whose history changed
                adds.refresh_dates(store.conn, self.dates, dated, NOTE, {f.ref for f in to_read})
            forgets.drop_their_vectors(store, texts)  # after the reads: a chunk may hold the text
            store.set_state("indexed_commit", self.source.commit or "")
            store.set_state(SETTINGS, settings_of(self.config))
            store.set_state("indexed_source", "git" if self.config.in_git else "worktree")
            store.set_state("indexed_at", datetime.now(UTC).isoformat(timespec="seconds"))

    def read(self, files: Sequence[SourceFile]) -> None:
        limit = self.config.max_note_bytes
        readable = [f for f in files if f.symlink or f.size <= limit]
        for file in files:
            if not file.symlink and file.size > limit:
                self.skip(file, too_large(file.size, limit))
        done = len(files) - len(readable)
        for file, data in self.source.read(readable):
            if data is None:  # its size was unknown until git showed it over the limit
                self.skip(file, too_large(file.size, limit))
            else:
                self.store_file(file, data)
            done += 1
            if self.progress is not None:
                self.progress(done, len(files))

    def store_file(self, file: SourceFile, data: bytes) -> None:
        if file.symlink:
            self.skip(file, symlink_reason(file.ref, data))
            return
        try:
            note = parse_note(file.ref, data, self.config.max_note_bytes)
        except NoteError as exc:
            self.skip(file, str(exc))
            return
        self.report.cut += [(file.ref, cut) for cut in note.cut]
        added = None if note.created else self.dates.of(file.ref)
        doc = note_document(note, file.blob_id, added)
        doc_id, changed = self.store.upsert(doc)
        if changed or self.rechunk:
            chunked = split_document(doc.title, doc.body, doc.body_line)
            self.report.capped += [file.ref] if chunked.capped else []
            changed = VectorStore(self.store.conn).replace_chunks(doc_id, chunked.chunks) or changed
        if changed:
            self.report.written += 1
        self.store.clear_skips(NOTE, [file.ref])
        self.report.read += 1

    def skip(self, file: SourceFile, reason: str) -> None:
        skip = Skip(NOTE, file.ref, file.blob_id, reason)
        self.store.delete(NOTE, [file.ref])
        self.store.record_skip(skip)
        self.report.skipped.append(skip)
