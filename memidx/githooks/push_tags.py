"""Reading the annotated tags a push sends: each one's message, without its signature block,
and that of a tag it points to (a tag of a tag: `git tag -a outer inner`), each tag read once."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from memidx.git.repo import GitRepo
from memidx.githooks.push_files import BLOB_LIMIT, SHORT, Found
from memidx.githooks.push_refs import Kinds, Update, kind_of


def tag_messages(repo: GitRepo, sent: Sequence[Update], kinds: Kinds) -> Iterator[Found]:
    """The message of each annotated tag pushed (and of a tag it points to)."""
    tags = {u.local_oid: u.remote_ref for u in sent if kind_of(kinds, u.local_oid) == "tag"}
    seen: set[str] = set()
    while tags:
        seen.update(tags)  # a tag pushed beside a tag pointing to it is read once, not twice
        pointed: dict[str, str] = {}
        for oid, data in _objects(repo, list(tags)):
            header, _, message = data.partition(b"\n\n")
            fields = dict(line.split(b" ", 1) for line in header.split(b"\n") if b" " in line)
            target = fields.get(b"object", b"").decode("ascii", "replace")
            if fields.get(b"type") == b"tag" and target not in seen:
                pointed[target] = tags[oid]
            text = message.decode("utf-8", "replace")
            yield Found(tags[oid], f"tag {oid[:SHORT]}", "message", _unsigned(text))
        tags = pointed


def _unsigned(message: str) -> str:
    """A tag's message without its signature block (no secret, but the detector may think so)."""
    at = message.find("-----BEGIN PGP SIGNATURE-----")
    at = message.find("-----BEGIN SSH SIGNATURE-----") if at < 0 else at
    return message if at < 0 else message[:at]


def _objects(repo: GitRepo, oids: Sequence[str]) -> Iterator[tuple[str, bytes]]:
    """(oid, contents) of each object, by `git cat-file --batch`."""
    for oid, _, data in repo.read_blobs([(oid, 0) for oid in oids], BLOB_LIMIT):
        yield oid, data or b""
