"""Reading the annotated tags a push sends: each one's message, and that of a tag it points to
(a tag of a tag: `git tag -a outer inner`), each tag read once. A signature block is read too:
no detector takes its armor for a secret (none in 3,000 random ones, nor git's own gpg and ssh
signatures), and a message that only held its BEGIN line (`-----BEGIN PGP SIGNATURE-----`,
pasted or typed) once hid all that followed, a key or a token, from the check.
A tag too large to hold (over BLOB_LIMIT, as a file is) is refused, never read as empty: only
its header is read, as git writes it, to find the tag it may point to."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from memidx.git.repo import GitRepo
from memidx.git.streamed import streamed
from memidx.githooks.push_files import BLOB_LIMIT, SHORT, Found
from memidx.githooks.push_refs import Kinds, Update, absent, kind_of

HEADER_LIMIT = 64 * 1024  # a tag's header (object, type, tag, tagger) is a few lines


def tag_messages(repo: GitRepo, sent: Sequence[Update], kinds: Kinds) -> Iterator[Found]:
    """The message of each annotated tag pushed (and of a tag it points to)."""
    from memidx.githooks.push_headers import header_found
    from memidx.githooks.readings import readings
    from memidx.githooks.secret_check import text_of

    # the old values of the refs pushed: git says the remote holds them, so it sends none again
    seen = {u.remote_oid for u in sent if not absent(u.remote_oid)}
    pushed = (u for u in sent if kind_of(kinds, u.local_oid) == "tag" and u.local_oid not in seen)
    tags = {u.local_oid: u.remote_ref for u in pushed}
    while tags:
        seen.update(tags)  # a tag pushed beside a tag pointing to it is read once, not twice
        pointed: dict[str, str] = {}
        for oid, size, data in repo.read_blobs([(oid, 0) for oid in tags], BLOB_LIMIT):
            ref, what = tags[oid], f"tag {oid[:SHORT]}"
            if data is None:
                unread = f"not checked for secrets: too large ({size} bytes): tag it again "
                unread += "with a shorter message (git tag -f)"
                yield Found(ref, what, "message", "", unread)
                header = _header(repo, oid)
            else:
                header, _, message = data.partition(b"\n\n")
                # as a file's: a message written whole (git hash-object) may be UTF-16; git
                # writes it as typed, under no `encoding` header: no UTF-8, as Latin-1 too
                plain = text_of(message, note=True) or ""
                for text, how in readings(message, None, plain):
                    yield Found(ref, what, "message", text, about=how)
            yield from header_found(ref, what, header)  # its name and tagger are sent too
            target, kind = _pointed(header)
            if kind == b"tag" and target not in seen:
                pointed[target] = ref
        tags = pointed


def _pointed(header: bytes) -> tuple[str, bytes]:
    """The object a tag points to and its type, as git reads them: its first line `object
    <id>` and its second `type <type>`. A later line that names another object (a tag written
    whole: `git hash-object --literally`) is none git follows, nor a push sends."""
    lines = header.split(b"\n", 2)
    target = lines[0].removeprefix(b"object ") if lines[0].startswith(b"object ") else b""
    second = lines[1] if len(lines) > 1 else b""
    kind = second.removeprefix(b"type ") if second.startswith(b"type ") else b""
    return target.decode("ascii", "replace"), kind


def _header(repo: GitRepo, oid: str) -> bytes:
    """The header of a tag too large to hold, read as git writes the tag, up to its blank
    line (or HEADER_LIMIT); git is stopped there."""
    pieces = streamed(repo, "cat-file", "tag", oid)
    head = bytearray()
    try:
        for piece in pieces:
            head += piece
            if b"\n\n" in head or len(head) > HEADER_LIMIT:
                break
    finally:
        pieces.close()  # the rest of the tag is never read
    return bytes(head[:HEADER_LIMIT]).partition(b"\n\n")[0]
