"""Reading what a commit or a tag holds besides its message: its header's fields (author,
committer, tagger, a tag's name, a signature, an embedded tag, any header written whole), and
a commit's message whole when `git log` shows it not as git stores and sends it: `%B` stops at
a NUL, and the log shows no header but its author and committer. Such a commit's object is
not the one the log's fields make (its hash is not the commit's id): only those are read
again, by `git cat-file`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from memidx.frozen import replace
from memidx.git.repo import GitRepo
from memidx.githooks.latin1 import AS_LATIN1
from memidx.githooks.push_files import BLOB_LIMIT, Found
from memidx.githooks.readings import AS_UTF8, readings

TYPE_CHECKING = False  # not typing's: a push of tags alone never reads a log
if TYPE_CHECKING:
    from memidx.githooks.push_log import Sent

SHOWN = ("tree", "parent")  # ids, no text; `object` and `type` of a tag alike
NAMES = {"tag": "tag name"}  # a tag's `tag` header: the name it was made with


def header_found(ref: str, what: str, header: bytes) -> list[Found]:
    """What each field of a commit's or a tag's header holds but the ids it names (`author
    name <email> <time> <zone>`, a tag's name, a field of several lines, `gpgsig`, `mergetag`,
    whole), read as its `encoding` header says (git re-encodes the whole header by it) and,
    where that reading differs, as UTF-8 beside it, with the field's bytes and the encoding:
    a secret of the UTF-8 reading is placed on them, and one the first reading holds said
    once (readings.Utf8Found). A tag's fields, read without them, said it twice."""
    fields = _raw_fields(header)
    encoding = _encoding(fields)
    found: list[Found] = []
    for key, value in fields:
        if key in (*SHOWN, "object", "type"):
            continue
        for text, how in readings(value, encoding, value.decode("utf-8", "replace")):
            data = value if how == AS_UTF8 else b""
            where, named = NAMES.get(key, key) + how, (encoding or "") if data else ""
            found.append(Found(ref, what, where, text, lines=False, data=data, encoding=named))
    return found


def _raw_fields(header: bytes) -> list[tuple[str, bytes]]:
    """Each field of a header and its value's bytes (a field of several lines whole)."""
    fields: list[tuple[str, list[bytes]]] = []
    for line in header.split(b"\n"):
        if line.startswith(b" ") and fields:  # a field's next line
            fields[-1][1].append(line[1:])
        else:
            key, _, value = line.partition(b" ")
            fields.append((key.decode("utf-8", "replace"), [value]))
    return [(key, b"\n".join(lines)) for key, lines in fields]


def _encoding(fields: list[tuple[str, bytes]]) -> str | None:
    """The encoding a commit's header names (`encoding ISO-8859-1`), if any."""
    named = dict(fields).get("encoding")
    return named.decode("ascii", "replace") if named else None


def commit_texts(
    repo: GitRepo, commits: Sequence[tuple[Sent, str, str]]
) -> Iterator[tuple[str, list[Found]]]:
    """For each (commit, remote ref, `commit <id>`): its message, author and committer, as
    the log showed them or, for a commit whose object holds more, read whole."""
    from memidx.githooks.secret_check import text_of

    unshown = [sent.commit for sent, _, _ in commits if not sent.whole]
    # their sizes first: a batch of unknown sizes is a few commits, a signed series slower
    sizes = repo.blob_sizes(unshown) if unshown else {}
    read = repo.read_blobs([(oid, sizes[oid]) for oid in unshown], BLOB_LIMIT)
    raw = {oid: (size, data) for oid, size, data in read}
    for sent, ref, what in commits:
        if sent.commit not in raw:
            found = [Found(ref, what, "message", sent.message)]
            if sent.latin1:  # no UTF-8, under no `encoding` header
                found.append(Found(ref, what, "message", sent.latin1, about=AS_LATIN1))
            people = (("author", sent.author), ("committer", sent.committer))
            found += [Found(ref, what, key, value, lines=False) for key, value in people]
            yield sent.commit, found
            continue
        size, data = raw[sent.commit]
        if data is None:
            unread = f"not checked for secrets: too large ({size} bytes): write it again "
            unread += "with a shorter message (git commit --amend, git rebase -i)"
            yield sent.commit, [Found(ref, what, "message", "", unread)]
            continue
        header, _, message = data.partition(b"\n\n")
        encoding = _encoding(_raw_fields(header))
        texts = readings(message, encoding, text_of(message, note=True) or "")
        found = [Found(ref, what, "message", text, about=how) for text, how in texts]
        if encoding and len(found) == 2 and found[1].about == AS_UTF8:  # placed by bytes
            found[1] = replace(found[1], data=message, encoding=encoding)
        yield sent.commit, found + header_found(ref, what, header)
