"""The commits a push sends, as `git log -z --raw -c` lists them: each one's message and the
files it adds or changes, with the blob each parent held at that path. git's output is read
as it comes and each commit handed on as soon as the next one starts, so a first push of a
long history never holds the whole log (tens of megabytes for 20,000 commits)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from memidx.frozen import Value
from memidx.git.repo import AS_STORED, GitRepo, decode_path
from memidx.git.streamed import split_at, streamed
from memidx.githooks.latin1 import latin1_reading

MODE_BLOB = ("100644", "100755", "120000")  # a file or a symlink's target: pushed as a blob
ZERO_ID = "0"  # git's all-zero id, of no object: a path a side lacks
# what git log shows of a commit's header, a line each (none of them can hold a newline)
HEADER = "%T%n%P%n%an%n%ae%n%ad%n%cn%n%ce%n%cd"


class Changed(Value):
    """A file a commit adds or changes: its path, its new blob, and the blob of that path in
    each parent that has one (a merge lists the path only when it differs from every parent)."""

    path: str
    blob: str
    before: tuple[str, ...] = ()


class Sent(Value):
    """A commit the push sends: its id, the ref git reached it from, its message, its files,
    its author and committer (`name <email>`), and whether the log showed it whole: the
    object the log's fields make, hashed as git hashes it, has the commit's id. A header the
    log does not show (a signature, an embedded tag, an encoding, any header written whole),
    a message going on after a NUL (where `%B` stops) or re-encoded, an author the log
    reformats (`A<a@b>`, a zone `+0`) each makes another object. A size compared instead was
    fooled: a Latin-1 message, each byte a UTF-8 byte longer, made up for a hidden header."""

    commit: str
    source: str
    message: str
    changes: tuple[Changed, ...]
    author: str = ""
    committer: str = ""
    whole: bool = False
    latin1: str = ""  # its message read as Latin-1 when it is no UTF-8 (readings.readings)


def sent_commits(
    repo: GitRepo,
    tips: Sequence[str],
    held: Sequence[str],
    remote: str | None,
    stale: Sequence[str] = (),
) -> Iterator[Sent]:
    """The commits `tips --not held --remotes=<remote>` (no tracking branches when `remote`
    is None: a URL or a path; none of the `stale` ones, `origin/main`), newest first, read
    from git's output as it comes."""
    import secrets

    # a mark no message holds: a message may hold any byte but NUL, \x01 too, which split it
    mark = f"\x01memidx-{secrets.token_hex(8)} "
    argv = ["log", "-z", f"--format={mark}%H %S%n{HEADER}%n%B", "--date=raw", "--raw"]
    argv += [AS_STORED]  # messages as stored: i18n.logOutputEncoding re-encodes them
    argv += ["--no-abbrev", "-c", "--root", "--no-show-signature"]  # no gpg run per commit
    argv += ["--no-renames", "--no-ext-diff", "--no-textconv", *tips, "--not", *held]
    if remote is not None:
        argv += [*(f"--exclude={name}" for name in stale), f"--remotes={remote}"]
    argv += ["--"]
    yield from parse_log(streamed(repo, *argv), mark.encode())


def parse_log(pieces: Iterable[bytes], mark: bytes = b"\x01") -> Iterator[Sent]:
    """Each commit of the output of `git log -z --format=<mark>%H %S%n<HEADER>%n%B --date=raw
    --raw --no-abbrev -c` given in pieces (any split), as soon as the next commit's mark has
    come."""
    entries = split_at(pieces, mark)
    next(entries, None)  # what precedes the first mark: nothing
    for entry in entries:
        yield parse_entry(entry)


def parse_entry(entry: bytes) -> Sent:
    """One commit of the log: `%H %S\\n<HEADER>\\n%B`, NUL, then its raw changes: a merge lists a
    path only when it differs from every parent, with one mode and id per parent, then the
    merge's own."""
    head, _, rest = entry.partition(b"\0")
    lines = head.split(b"\n", HEADER.count("%n") + 2)
    first, message = lines[0], lines[-1] if len(lines) > 1 else b""
    commit, _, source = first.decode("ascii", "replace").partition(" ")
    author, committer, header = _people(lines[1:-1])
    changes: list[Changed] = []
    fields = rest.split(b"\0")
    i = 0
    while i + 1 < len(fields):
        meta = fields[i].strip(b"\n")
        if not meta.startswith(b":"):
            i += 1
            continue
        parents = len(meta) - len(meta.lstrip(b":"))
        parts = [part.decode() for part in meta.lstrip(b":").split()]
        mode, blob = parts[parents], parts[2 * parents + 1]
        if mode in MODE_BLOB and blob.strip(ZERO_ID):
            olds = zip(parts[:parents], parts[parents + 1 : 2 * parents + 1], strict=True)
            before = tuple(oid for old, oid in olds if old in MODE_BLOB and oid.strip(ZERO_ID))
            changes.append(Changed(decode_path(fields[i + 1]), blob, before))
        i += 2
    text, whole = message.decode("utf-8", "replace"), _hashes_to(commit, header + message)
    # shown whole, it has no `encoding` header: git stored the bytes as typed
    latin1 = "".join(other for other, _ in latin1_reading(message, text)) if whole else ""
    return Sent(commit, source, text, tuple(changes), author, committer, whole, latin1)


def _hashes_to(commit: str, body: bytes) -> bool:
    """Whether `body`, hashed as git hashes a commit (SHA-1, or SHA-256 for a 64-digit id),
    is the commit `commit`: then it is all git stores and sends of it."""
    import hashlib

    hashed = hashlib.sha256 if len(commit) == 64 else hashlib.sha1
    return hashed(b"commit %d\0%s" % (len(body), body)).hexdigest() == commit


def _people(fields: list[bytes]) -> tuple[str, str, bytes]:
    """The author and committer (`name <email>`) of a commit's HEADER lines, and the header
    they make as git writes it, with the blank line that ends it."""
    tree, parents, *people = (fields + [b""] * 8)[:8]
    author, committer = b"%s <%s>" % tuple(people[:2]), b"%s <%s>" % tuple(people[3:5])
    header = b"tree %s\n" % tree + b"".join(b"parent %s\n" % p for p in parents.split())
    header += b"author %s %s\ncommitter %s %s\n\n" % (author, people[2], committer, people[5])
    return author.decode("utf-8", "replace"), committer.decode("utf-8", "replace"), header
