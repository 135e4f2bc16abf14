"""Reading what a push sends as files: the blobs its commits add or change and the git
notes of a notes ref. Each blob is read once, by as few
`git cat-file --batch` runs as its size allows, and held only while it is checked."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from memidx.frozen import Value
from memidx.git.repo import BATCH_BYTES, UNKNOWN_SIZE, GitRepo

SHORT = 12  # the object ids the lines show
BLOB_LIMIT = 64 * 1024 * 1024  # memidx.githooks.secret_check.SEGMENT_LIMIT: a guard


class Found(Value):
    """Something the push sends that may hold a secret: where it is and its text."""

    ref: str  # the remote ref it goes to
    what: str  # `commit <id>`, `tag <id>`
    where: str  # `message`, a file, `note on <object>`
    text: str
    unread: str = ""  # why it could not be read: never let through unchecked
    named: bool = False  # `text` is the file's name (pushed as the tree's entry), not its text


class Pending(Value):
    """A blob the push sends, where it goes, and how to read it."""

    blob: str
    ref: str
    what: str
    where: str
    note: bool = False  # read as a note: its text whatever bytes it holds


def read_pending(repo: GitRepo, pending: Sequence[Pending]) -> Iterator[Found]:
    """The texts of the pending blobs, each blob read once."""
    from memidx.githooks.secret_check import text_of

    places: dict[str, list[Pending]] = {}
    for item in pending:
        places.setdefault(item.blob, []).append(item)
    # `git cat-file --batch` reads blobs of unknown size 16 a run: sizes first for more
    sizes = {} if len(places) * UNKNOWN_SIZE <= BATCH_BYTES else blob_sizes(repo, list(places))
    for blob, size, data in repo.read_blobs([(b, sizes.get(b, 0)) for b in places], BLOB_LIMIT):
        for item in places[blob]:
            if data is None:  # too large to read: never let through unchecked
                unread = f"not checked for secrets: too large ({size} bytes)"
                yield Found(item.ref, item.what, item.where, "", unread)
            elif (text := text_of(data, item.note)) is not None:
                yield Found(item.ref, item.what, item.where, text)


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
