"""Reading what a push sends as files: the blobs its commits add or change (a haystack
segment by its records), the git notes of a notes ref, and a blob or a tree a ref is pushed at
straight (`git push origin <blob>:refs/tags/x`, a tag of a tree). Each blob is read once, by as
few `git cat-file --batch` runs as its size allows, and held only while it is checked."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from memidx.frozen import Value
from memidx.git.repo import BATCH_BYTES, UNKNOWN_SIZE, GitRepo, decode_path

SHORT = 12  # the object ids the lines show
BLOB_LIMIT = 64 * 1024 * 1024  # memidx.githooks.secret_check.SEGMENT_LIMIT: a guard


class Found(Value):
    """Something the push sends that may hold a secret: where it is and its text."""

    ref: str  # the remote ref it goes to
    what: str  # `commit <id>`, `tag <id>`, `blob <id>`, `tree <id>`
    where: str  # `message`, a file, `note on <object>`, `` (a blob pushed straight)
    text: str
    unread: str = ""  # why it could not be read: never let through unchecked
    named: bool = False  # `text` is the file's name (pushed as the tree's entry), not its text
    lines: bool = True  # the line of a secret is shown (not for a record's labels)
    about: str = ""  # added to a secret's kind: ` in the record's labels`
    # a message read as UTF-8 beside its commit's encoding: its bytes, and that encoding
    data: bytes = b""
    encoding: str = ""


class Pending(Value):
    """A blob the push sends, where it goes, and how to read it."""

    blob: str
    ref: str
    what: str
    where: str
    note: bool = False  # read as a note: its text whatever bytes it holds
    segment: bool = False  # read as a haystack segment, by its records
    before: tuple[str, ...] = ()  # a segment's blobs in the commit's parents (held or read)


def read_pending(
    repo: GitRepo, pending: Sequence[Pending], *, partial: bool = False
) -> Iterator[Found]:
    """The texts of the pending blobs, each blob read once (a segment: what it adds to the
    blob a parent held, when it starts with it; see memidx.githooks.push_segments). In a
    `partial` clone git would fetch from the remote a parent's blob it lacks: no parent's
    blob is looked at there, each segment read whole."""
    from memidx.githooks.secret_check import file_texts

    places: dict[str, list[Pending]] = {}
    uses: dict[str, int] = {}  # a parent's blob: how many segments still start after it
    wanted: dict[str, None] = {}  # each parent's blob before its segment's: held briefly
    for item in reversed(pending):  # git's log is newest first: a parent's blob comes first
        for oid in () if partial else item.before:
            uses[oid] = uses.get(oid, 0) + 1
            wanted[oid] = None
        places.setdefault(item.blob, []).append(item)
        wanted[item.blob] = None
    # `git cat-file --batch` reads blobs of unknown size 16 a run: sizes first for more
    sizes = {} if len(wanted) * UNKNOWN_SIZE <= BATCH_BYTES else blob_sizes(repo, list(wanted))
    held: dict[str, bytes] = {}
    for blob, size, data in repo.read_blobs([(b, sizes.get(b, 0)) for b in wanted], BLOB_LIMIT):
        if blob in uses and data is not None:
            held[blob] = data
        for item in places.get(blob, ()):
            if data is None:  # too large to read: never let through unchecked
                unread = f"not checked for secrets: too large ({size} bytes)"
                yield Found(item.ref, item.what, item.where, "", unread)
            elif item.segment or data.startswith(b"KRD1"):  # memidx.haystack.frames.MAGIC
                yield from _segment(item, data, held, uses)
            else:  # as Latin-1 too when no UTF-8: push_check says a secret both hold once
                for text, how in file_texts(data, item.note):
                    yield Found(item.ref, item.what, item.where, text, about=how)


def _segment(
    item: Pending, data: bytes, held: dict[str, bytes], uses: dict[str, int]
) -> Iterator[Found]:
    """The texts of a segment's blob; lets go of its parents' blobs no other segment needs."""
    from memidx.githooks.push_segments import segment_parts

    before = [held[oid] for oid in item.before if oid in held]
    for oid in item.before:
        if oid in uses and (left := uses[oid] - 1) >= 0:
            uses[oid] = left
            if not left:
                held.pop(oid, None)
    for part in segment_parts(data, before):
        where = f"{item.where}@{part.offset}"
        yield Found(item.ref, item.what, where, part.text, lines=part.lines, about=part.about)


def blob_sizes(repo: GitRepo, oids: Sequence[str]) -> dict[str, int]:
    """The size of each blob git has, by one `git cat-file --batch-check`."""
    unique = list(dict.fromkeys(oids))
    request = "".join(f"{oid}\n" for oid in unique).encode()
    out = repo.run("cat-file", "--batch-check", input_bytes=request)
    sizes: dict[str, int] = {}
    for oid, line in zip(unique, out.decode("ascii", "replace").splitlines(), strict=False):
        fields = line.split()
        if len(fields) == 3 and fields[1] == "blob" and fields[2].isdigit():
            sizes[oid] = int(fields[2])
    return sizes


def object_texts(repo: GitRepo, pushed: Sequence[tuple[str, str, str]]) -> Iterator[Found]:
    """For each (remote ref, type, id) of a blob or a tree a ref is pushed at, or a tag peels
    to: a blob's text as a note's, every file of a tree and its name. A tree pushed without a
    commit has no notes folder of its own (`HEAD:notes` or `HEAD^{tree}` alike), so every file
    of it is read, binary files (a NUL byte in the first 8,000) left out as the check of staged
    files leaves them out, notes (`*.md`) read whatever bytes they hold."""
    from memidx.notes.note import has_note_suffix

    pending: list[Pending] = []
    for ref, kind, oid in dict.fromkeys(pushed):
        what = f"{kind} {oid[:SHORT]}"
        if kind == "blob":
            pending.append(Pending(oid, ref, what, "", note=True))
            continue
        out = repo.run("ls-tree", "-r", "-z", "--full-tree", oid)
        for entry in out.split(b"\0"):
            meta, _, raw = entry.partition(b"\t")
            fields = meta.split()
            if len(fields) == 3 and fields[1] == b"blob":
                path = decode_path(raw)
                yield Found(ref, what, path, path, named=True)
                pending.append(Pending(fields[2].decode(), ref, what, path, has_note_suffix(path)))
    yield from read_pending(repo, pending)
