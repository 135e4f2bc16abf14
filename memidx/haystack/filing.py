"""Filing records: turns, transcripts and facts appended to this clone's log and indexed at once,
from the CLI or from any thread of an agent process."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from memidx.config import Config
from memidx.errors import MemidxError, UsageError
from memidx.haystack.frames import Record, read_at
from memidx.haystack.indexing import (
    Filed,
    file_record,
    haystack_folder,
    make_record,
    segment_ref,
    sync_records,
)
from memidx.haystack.writer import Writer, describe_folder, writer_id
from memidx.index.store import RecordStore, Store, open_store
from memidx.portable import file_lock


def writer(config: Config) -> Writer:
    """This clone's writer: notes/haystack/<writer id>/, appends serialised by a lock file."""
    folder = haystack_folder(config) / writer_id(config.state_dir)
    lock = config.state_dir / "haystack.lock"
    return Writer(
        folder,
        lock,
        config.segment_bytes,
        config.fsync,
        history=lambda: _committed(config, folder),
        committed=_in_head(config, folder),
    )


def _in_head(config: Config, folder: Path) -> Callable[[str], bool]:
    """Whether HEAD holds a segment of `folder` (committed files are never appended to); git
    is asked once per segment and commit, the commit read from .git's files."""
    from memidx.git.refs import read_head
    from memidx.git.repo import GitRepo

    answers: dict[tuple[str, str], bool] = {}

    def committed(name: str) -> bool:
        if not config.in_git:
            return False
        ref = segment_ref(config, folder / name)
        head = read_head(config.root)
        if head is None:  # no commit yet, or not readable this way: ask git about HEAD
            return GitRepo(config.root).has("HEAD", ref)
        if (head, name) not in answers:
            answers[head, name] = GitRepo(config.root).has(head, ref)
        return answers[head, name]

    return committed


def _committed(config: Config, folder: Path) -> list[str]:
    """Names of the segments in `folder` in any commit git has: asked only by a writer with no
    memory of its own segments (the first filing after an upgrade, or a lost .memidx file)."""
    if not config.in_git:
        return []
    from memidx.git.repo import GitRepo

    ref = segment_ref(config, folder)
    out = GitRepo(config.root).run(  # -z: names as they are; --reflog: commits no ref reaches
        "log", "--all", "--reflog", "--format=", "--name-only", "-z", "--", f"{ref}/", check=False
    )
    names = out.decode("utf-8", "replace").replace("\n", "\0").split("\0")
    return [name.rsplit("/", 1)[-1] for name in names if name]


def writable_index(config: Config, notice: Callable[[str], None] | None = None) -> Store:
    """The index for writing; one never filled (new or rebuilt) is filled first, notes and
    records, by one process while the others wait: filing into a deleted index never leaves
    the rest of the memory out. `notice` hears of a rebuild or an upgrade."""
    store, said = open_store(config.index_path, write=True)
    if said and notice is not None:
        notice(said)
    if store.get_state("indexed_at") is None:
        with file_lock(Path(f"{config.index_path}.lock")):
            if store.get_state("indexed_at") is None:
                from memidx.index.sync import ingest, note_source

                ingest(config, store, note_source(config))
                sync_records(config, store, full=True)
    return store


TURN_SHAPE = 'e.g. {"user": "...", "assistant": "..."} or {"text": "..."}'


def turn_record(payload: object) -> Record:
    """The record of one turn given as JSON: `user` and `assistant` texts (or `text`), and
    optionally `agent`, `session`, `tags`, `drawer`, `summary_of`, `ts`, `kind`."""
    if not isinstance(payload, dict):
        raise UsageError("the turn must be a JSON object", TURN_SHAPE)
    fields: dict[str, object] = {str(k): v for k, v in cast(dict[object, object], payload).items()}
    kind = fields.pop("kind", None) or "turn"
    if not isinstance(kind, str):
        raise UsageError(f"kind must be a string, not {type(kind).__name__}", TURN_SHAPE)
    if kind not in ("turn", "fact"):
        raise UsageError(f"file-turn files turns and facts, not {kind!r}", "use archive-transcript")
    text = fields.pop("text", None)
    user, assistant = fields.pop("user", None), fields.pop("assistant", None)
    for name, value in (("text", text), ("user", user), ("assistant", assistant)):
        if value is not None and not isinstance(value, str):
            raise UsageError(f"{name} must be a string, not {type(value).__name__}", TURN_SHAPE)
    if text is not None and (user is not None or assistant is not None):
        raise UsageError("the turn has both text and user/assistant: one would be lost", TURN_SHAPE)
    if text is None:
        parts = [f"User: {user}" if user else "", f"Assistant: {assistant}" if assistant else ""]
        text = "\n\n".join(p for p in parts if p)
    unknown = sorted(set(fields) - {"agent", "session", "tags", "drawer", "summary_of", "ts"})
    if unknown:
        raise UsageError(
            f"unknown field {unknown[0]!r} in the turn", "see `memidx file-turn --help`"
        )
    try:
        return make_record(kind, str(text), **fields)
    except ValueError as exc:
        raise UsageError(f"invalid turn: {exc}", "`ts` is ISO 8601, `tags` a list") from exc
    except MemidxError as exc:
        raise UsageError(exc.message, exc.hint) from exc


def file(config: Config, record: Record, notice: Callable[[str], None] | None = None) -> Filed:
    """Append and index one record in a process of its own (the CLI)."""
    store = writable_index(config, notice)
    try:
        return file_record(config, store, record, writer(config))
    finally:
        store.conn.close()


@dataclass(frozen=True, slots=True)
class Shown:
    """A record and where it is stored."""

    record: Record
    ref: str


def show(config: Config, ref: str) -> Shown:
    """The record at `<segment>@<offset>`, or the record with this id."""
    if "@" not in ref:
        store, _ = open_store(config.index_path, write=False)
        try:
            found = RecordStore(store.conn).record_ref(ref)
        finally:
            store.conn.close()
        if found is None:
            raise MemidxError(f"no record with id {ref!r}", "search for it, or give segment@offset")
        ref = found
    segment, _, offset = ref.rpartition("@")
    if not offset.isdigit():
        raise UsageError(f"{ref!r} is not <segment>@<offset> or a record id", "copy it from a hit")
    path = (config.root / segment).resolve()
    if not path.is_relative_to(haystack_folder(config).resolve()) or not path.is_file():
        raise MemidxError(
            f"no segment {segment}", "refs look like notes/haystack/<writer>/<file>@<n>"
        )
    return Shown(read_at(path, int(offset)), ref)


class Haystack:
    """File records from any thread; each thread opens and keeps its own SQLite connection."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.writer = writer(config)
        self._local = threading.local()

    def _store(self) -> Store:
        store: Store | None = getattr(self._local, "store", None)
        if store is None:
            store = writable_index(self.config)
            self._local.store = store
        return store

    def file(self, kind: str, text: str, **fields: object) -> Filed:
        """Append and index one record (turn, transcript or fact)."""
        return file_record(
            self.config, self._store(), make_record(kind, text, **fields), self.writer
        )

    def close(self) -> None:
        """Close this thread's connection."""
        store: Store | None = getattr(self._local, "store", None)
        if store is not None:
            store.conn.close()
            self._local.store = None


class BackgroundFiler:
    """A worker thread that files records, as a housekeeper in an agent does: `submit` returns
    a Future whose result() is the filed record, or raises the error that stopped it."""

    def __init__(self, config: Config) -> None:
        self._haystack = Haystack(config)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memidx-filer")

    def submit(self, kind: str, text: str, **fields: object) -> Future[Filed]:
        return self._executor.submit(self._haystack.file, kind, text, **fields)

    def close(self) -> None:
        """Finish what was submitted and close the worker's connection."""
        self._executor.submit(self._haystack.close).result()
        self._executor.shutdown(wait=True)

    def __enter__(self) -> BackgroundFiler:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def commit_haystack(config: Config) -> str | None:
    """Commit this clone's segments (and the haystack's .gitattributes); None if unchanged."""
    from memidx.git.commit import commit_paths
    from memidx.git.repo import GitRepo

    repo = GitRepo(config.root)
    if not repo.run("symbolic-ref", "-q", "HEAD", check=False).strip():
        raise MemidxError(
            "HEAD is detached: a commit of the haystack here would be left behind",
            "check out a branch first (git switch -c <name> keeps this commit)",
        )
    folder = haystack_folder(config)
    mine = folder / writer_id(config.state_dir)
    own = writer(config)
    with own.locked():  # no record lands between the commit and the closing of its segment
        attributes = folder / ".gitattributes"
        made = mine.exists() and not attributes.exists()
        if made:
            describe_folder(folder)
        paths = [p for p in (attributes, folder / ".gitignore", mine) if p.exists()]
        refs = [p.relative_to(config.root).as_posix() for p in paths]
        status = ("status", "--porcelain", "--untracked-files=all", "--", *refs)
        if not refs or not repo.run(*status).strip():
            return None
        count = sum(1 for _ in Path(mine).glob("*.krd")) if mine.exists() else 0
        try:
            commit = commit_paths(
                config, refs, f"haystack: segments of {mine.name} ({count} files)"
            )
        except MemidxError:
            if made:  # left untracked, it would block a pull that brings another clone's
                attributes.unlink(missing_ok=True)
            raise
        own.close()  # the next record starts a new segment: committed files stay as committed
        return commit
