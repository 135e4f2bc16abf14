"""Find one record for `memidx show`: by `<segment>@<offset>`, or by id through the index."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from shlex import quote

from memidx.config import Config
from memidx.errors import GitError, IndexUnusable, MemidxError, UsageError
from memidx.git.repo import GitRepo
from memidx.hashes import content_hash
from memidx.haystack.forgotten import tombstones_on_disk
from memidx.haystack.frames import FORGET, Record, read_at
from memidx.haystack.indexing import haystack_folder
from memidx.haystack.left_segments import left_record, left_refs
from memidx.haystack.redaction import LABELS
from memidx.index.store import RecordStore, open_store
from memidx.notes.note import has_note_suffix
from memidx.secrets.detect import mask


@dataclass(frozen=True, slots=True)
class Shown:
    """A record and where it is stored."""

    record: Record
    ref: str
    intact: bool = True  # whether its text still matches the hash it was written with


def tombstone_named(record_id: str, forgets: str | None) -> UsageError:
    """The one line `show` and `forget` give for a tombstone named: it has no text to show,
    and is never forgotten (what it forgets would come back)."""
    return UsageError(
        f"{record_id} is a tombstone: it keeps {forgets or 'a record'} forgotten and is never "
        "shown or forgotten itself",
        "give the id or ref of a turn, transcript or fact",
    )


def without_line(ref: str) -> str:
    """`<segment>@<offset>` of a record's ref as search prints it for people, with the line of
    the match after it (`<segment>@<offset>:<line>`); any other text as it is."""
    segment, at, rest = ref.rpartition("@")
    offset, colon, line = rest.partition(":")
    if at and colon and all(part.isascii() and part.isdigit() for part in (offset, line)):
        return f"{segment}@{offset}"
    return ref


def show(config: Config, ref: str) -> Shown:
    """The record at `<segment>@<offset>` (a hit's `:<line>` after it is ignored), or the
    record with this id."""
    ref = without_line(ref)
    if not ref.strip():
        raise UsageError("the ref is empty", "copy a record's id or <segment>@<offset> from a hit")
    if "@" not in ref:
        ref = _ref_of_id(config, ref)
    segment, _, offset = ref.rpartition("@")
    if not (offset.isascii() and offset.isdigit()) or len(offset) > 19:
        raise UsageError(f"{ref!r} is not <segment>@<offset> or a record id", "copy it from a hit")
    path = (config.root / segment).resolve()
    if not path.is_relative_to(haystack_folder(config).resolve()) or not path.is_file():
        raise MemidxError(
            f"no segment {segment}", "refs look like notes/haystack/<writer>/<file>@<n>"
        )
    size = path.stat().st_size
    if int(offset) >= size:
        raise MemidxError(f"no record at {ref}: the segment has {size} bytes", "copy it from a hit")
    record = read_at(path, int(offset))
    if record.kind == FORGET:
        raise tombstone_named(record.id, record.forgets)
    if _is_forgotten(config, record.id, segment):
        raise MemidxError(f"no record at {ref}: it was forgotten", "memidx forget removed it")
    return Shown(masked(record), ref, content_hash(record.text) == record.hash)


def masked(record: Record) -> Record:
    """The record as it may be shown: whatever the detector flags in its text, tags, drawer,
    agent or session masked (a record filed before redaction reached them)."""
    labels = {k: mask(v) for k in LABELS if isinstance(v := getattr(record, k), str)}
    tags = tuple(mask(tag) for tag in record.tags)
    return replace(record, text=mask(record.text), tags=tags, **labels)


def _ref_of_id(config: Config, record_id: str) -> str:
    """`<segment>@<offset>` of the record with this id: the index's, else (not read into it
    yet) a segment's a filing in the log alone named, also when readers refuse the index
    (missing, not built, too old): a hurried filing filed there for that, and gave the id."""
    try:
        store, _ = open_store(config.index_path, write=False)
    except IndexUnusable:
        found = left_record(config, record_id)
        if found is None and has_note_suffix(path := record_id.rpartition(":")[0] or record_id):
            raise _a_note_named(config, path) from None  # it said to build the index first
        if found is None:
            raise
        return found
    try:
        records = RecordStore(store.conn)
        found = records.record_ref(record_id)
        forgotten = found is None and record_id in records.forgotten_ids()
    finally:
        store.conn.close()
    if forgotten:
        raise MemidxError(
            f"no record with id {record_id!r}: it was forgotten", "memidx forget removed it"
        )
    found = found or left_record(config, record_id)  # filed in the log alone: not read yet
    if found is None and has_note_suffix(path := record_id.rpartition(":")[0] or record_id):
        raise _a_note_named(config, path)
    if found is None:
        raise MemidxError(
            f"no record with id {record_id!r}", "search for it, or give segment@offset"
        )
    return found


def _a_note_named(config: Config, path: str) -> MemidxError:
    """The error for a note's path given to `show`, which shows records: where to read the
    note, or, when there is no such note, that there is none and how to list them."""
    path = _in_root(config, path) or path
    inside = not path.startswith(("/", "\\")) and ".." not in path.replace("\\", "/").split("/")
    if inside and (config.root / path).is_file() and not _past_a_link(config, path):
        what, hint = _where_the_note_is(config, path)
        return MemidxError(
            f"{path} is {what}: `memidx show` shows haystack records (turns, transcripts, facts)",
            hint,
        )
    notes = config.notes_dir
    return MemidxError(
        f"no note {path} in this memory",
        f"list the notes with `git ls-files {notes}/`, or find one with `memidx search <words>`",
    )


def _in_root(config: Config, path: str) -> str | None:
    """`path` as a path from the memory's root when it names a place in it (`/memory/notes/x.md`,
    `notes/../notes/x.md`: `notes/x.md`, which was `no note` though the note was there)."""
    import os

    real = config.root.resolve()
    for root in (config.root, real):
        found = os.path.relpath(os.path.normpath(root / path), root)
        if found != ".." and not found.startswith(f"..{os.sep}"):
            return found.replace(os.sep, "/")
    given = Path(os.path.normpath(path))
    for above in given.parents if given.is_absolute() else ():  # through a link to the memory
        # only the part above the memory's root is resolved; realpath, not resolve(), which
        # raised `Symlink loop from ...` (a traceback) for a loop among the folders
        if Path(os.path.realpath(above)) == real:
            return given.relative_to(above).as_posix()
    return None


def _past_a_link(config: Config, path: str) -> bool:
    """Whether a folder on `path`'s way is a link (`notes/shared` to a folder outside): git
    tracks nothing past one, so it is no note; it was `a note file git does not track yet`,
    with a `git add` that git refuses (`beyond a symbolic link`)."""
    folders = PurePosixPath(path).parts[:-1]
    return any(config.root.joinpath(*folders[: at + 1]).is_symlink() for at in range(len(folders)))


def _where_the_note_is(config: Config, path: str) -> tuple[str, str]:
    """What the note file is to git, and where to read it: `git show HEAD:` failed for a note
    not committed yet (`path 'notes/x.md' exists on disk, but not in 'HEAD'`)."""
    path = PurePosixPath(path).as_posix()  # git reads no HEAD:notes//x.md; ./ is the shell's
    repo, said = GitRepo(config.root), quote(path)  # `git add notes/a b.md` added two files
    try:
        if config.in_git and repo.has_file("HEAD", path):
            at_head = quote(f"HEAD:{path}")
            return "a note", f"open the file, or read it at HEAD with `git show {at_head}`"
        staged = config.in_git and repo.run("ls-files", "-z", "--", f":(literal){path}")
        ignored = config.in_git and not staged and repo.run("check-ignore", "--", path, check=False)
    except GitError as exc:
        if isinstance(exc.__cause__, OSError):  # no git could start (memidx.git.root_gone):
            raise  # it was told as a note file git does not track
        staged = ignored = False
    if staged:
        return "a note staged but not committed yet", "open the file; commit it to remember it"
    if ignored:  # `git add` refuses it: the hint said to run it
        rule = f"drop the rule `git check-ignore -v {said}` names, or `git add -f {said}`"
        return "a note file git ignores", f"open the file; to remember it, {rule}, and commit it"
    if not config.in_git:
        return "a note file", "open the file"
    return "a note file git does not track yet", f"open the file; `git add {said}` and commit it"


def _is_forgotten(config: Config, record_id: str, segment: str) -> bool:
    """Whether a tombstone forgets the record: the index's, or the log's when readers refuse
    the index and the record was filed in the log alone (in `segment`, which one names)."""
    try:
        store, _ = open_store(config.index_path, write=False)
    except IndexUnusable:
        if segment not in left_refs(config):
            raise
        return record_id in tombstones_on_disk(haystack_folder(config))
    try:
        return record_id in RecordStore(store.conn).forgotten_ids()
    finally:
        store.conn.close()
