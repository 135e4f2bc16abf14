"""The pre-push check: what a `git push` sends to one remote holds no secret. git runs no
message hook for a commit made with `--no-verify` or carried over whole by `git cherry-pick`
or `git rebase`, none for an annotated tag's message or a git note, and no pre-commit check
for a note committed with `--no-verify`: all of them leave with a plain `git push`.

git's pre-push hook gets `<local ref> <local oid> <remote ref> <remote oid>` lines on stdin.
What goes to that remote is, for each ref, the commits `<local oid> --not <remote oid>
--remotes=<remote>`: the remote holds what its own tracking branches and the old values of the
refs pushed hold (a commit only another remote holds goes out). For each: its message, and the
files under the notes folder it adds or changes, names and text (a merge: those that differ
from every parent); an annotated tag's message; for refs/notes/* (from or to), the notes'
text. Same detectors, allow marker and baseline as the pre-commit check
(memidx.githooks.secret_check). One line per secret, never the secret: `<remote ref>: commit
<id>: <file>:<line>: <kind>`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import PurePosixPath

from memidx.config import Config
from memidx.errors import UsageError
from memidx.frozen import Value
from memidx.git.repo import GitRepo, decode_path

NOTES_REFS = "refs/notes/"
SHORT = 12  # the commit ids the lines show
BLOB_LIMIT = 64 * 1024 * 1024  # memidx.githooks.secret_check.SEGMENT_LIMIT: a guard


class Update(Value):
    """One line of git's pre-push input: a ref the push updates."""

    local_ref: str
    local_oid: str
    remote_ref: str
    remote_oid: str


def absent(oid: str) -> bool:
    """git's all-zero id: a deletion (local) or a ref the remote lacks (remote)."""
    return not oid.strip("0")


def parse_updates(text: str) -> list[Update]:
    """The refs of git's pre-push input; UsageError naming a line that is none."""
    updates: list[Update] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split(" ")
        if len(fields) != 4 or not all(_hex(field) for field in fields[1::2]):
            raise UsageError(
                f"line {number} of the standard input is no `<local ref> <local oid> <remote "
                "ref> <remote oid>` line of git's pre-push hook",
                "run it as git's pre-push hook does",
            )
        updates.append(Update(*fields))
    return updates


def _hex(oid: str) -> bool:
    return len(oid) in (40, 64) and all(c in "0123456789abcdef" for c in oid)


class Found(Value):
    """Something the push sends that may hold a secret: where it is and its text."""

    ref: str  # the remote ref it goes to
    what: str  # `commit <id>`, `tag <id>`
    where: str  # `message`, a file, `note on <object>`
    text: str
    unread: str = ""  # why it could not be read: never let through unchecked
    named: bool = False  # `text` is the file's name (pushed as the tree's entry), not its text


def push_problems(config: Config, remote: str, updates: Sequence[Update]) -> list[str]:
    """One `<remote ref>: <what>: <where>:<line>: <kind>` line per secret the push to `remote`
    would send that neither an allow marker nor the baseline allows."""
    sent = [u for u in updates if not absent(u.local_oid)]  # a deletion sends nothing
    if not sent:
        return []
    from memidx.githooks.secret_check import BASELINE, read_baseline
    from memidx.hashes import sha256_hex
    from memidx.secrets.detect import find_secrets
    from memidx.secrets.patterns import line_of, redact
    from memidx.text import display

    problems: list[str] = []
    allowed: set[str] | None = None  # read only when a secret is found
    for found in pushed_texts(config, remote, sent):
        if found.unread:
            problems.append(f"{found.ref}: {found.what}: {found.where}: {found.unread}")
        secrets = find_secrets(found.text, allow=True)
        for secret in secrets:
            if allowed is None:
                allowed = read_baseline(config.root / BASELINE)
            fingerprint = found.text[secret.start : secret.end].encode("utf-8", "replace")
            if sha256_hex(fingerprint) in allowed:
                continue
            line = line_of(found.text, secret.start)
            where = f"message line {line}" if found.where == "message" else f"{found.where}:{line}"
            kind = secret.kind
            if found.named:  # as the pre-commit check names it: masked, never the secret
                where, kind = display(redact(found.text, secrets)), f"{kind} in the file name"
            problems.append(f"{found.ref}: {found.what}: {where}: {kind}")
    return problems


def pushed_texts(config: Config, remote: str, sent: Sequence[Update]) -> Iterator[Found]:
    """The messages, tag messages, notes and git notes the push sends (see the docstring)."""
    repo = GitRepo(config.root)
    oids = [u.local_oid for u in sent] + [u.remote_oid for u in sent if not absent(u.remote_oid)]
    kinds = object_types(repo, [*oids, *(f"{oid}^{{}}" for oid in oids)])
    # `git log` takes what peels to a commit (a tag of a tree or a blob has no history)
    held = [oid for oid in oids[len(sent) :] if _commit(kinds, oid)]  # old values git knows
    yield from _tag_messages(repo, sent, kinds)
    for notes in (False, True):
        group = [u for u in sent if _notes(u) == notes and _commit(kinds, u.local_oid)]
        if group:
            yield from _commits(config, repo, remote, group, held, notes=notes)


def _notes(update: Update) -> bool:
    """Whether git notes are pushed: from or to refs/notes/ (`git push origin
    refs/notes/commits:refs/heads/backup` sends every note as a file of a branch)."""
    return update.local_ref.startswith(NOTES_REFS) or update.remote_ref.startswith(NOTES_REFS)


def _commit(kinds: dict[str, str | None], oid: str) -> bool:
    return kinds.get(f"{oid}^{{}}") == "commit"


def object_types(repo: GitRepo, oids: Sequence[str]) -> dict[str, str | None]:
    """The type of each object (None for one this repository lacks)."""
    unique = list(dict.fromkeys(oids))
    out = repo.run(
        "cat-file", "--batch-check", input_bytes="".join(f"{o}\n" for o in unique).encode()
    )
    kinds: dict[str, str | None] = {}
    for oid, line in zip(unique, out.decode("ascii", "replace").splitlines(), strict=False):
        fields = line.split()
        kinds[oid] = fields[1] if len(fields) == 3 else None
    return kinds


def _tag_messages(
    repo: GitRepo, sent: Sequence[Update], kinds: dict[str, str | None]
) -> Iterator[Found]:
    """The message of each annotated tag pushed (and of a tag it points to)."""
    tags = {u.local_oid: u.remote_ref for u in sent if kinds.get(u.local_oid) == "tag"}
    seen: set[str] = set()
    while tags:
        pointed: dict[str, str] = {}
        for oid, data in _objects(repo, list(tags)):
            seen.add(oid)
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


def _commits(
    config: Config,
    repo: GitRepo,
    remote: str,
    group: Sequence[Update],
    held: Sequence[str],
    *,
    notes: bool,
) -> Iterator[Found]:
    """The messages of the commits the push sends for `group`, then the files they add or
    change: under the notes folder, or for a notes ref every note."""
    tips = {u.local_oid: u.remote_ref for u in reversed(group)}  # the first ref named wins
    import secrets

    # a mark no message holds: a message may hold any byte but NUL, \x01 too, which split it
    mark = f"\x01memidx-{secrets.token_hex(8)} "
    argv = ["log", "-z", f"--format={mark}%H %S%n%B", "--raw", "--no-abbrev", "-c", "--root"]
    argv += ["--no-renames", "--no-ext-diff", "--no-textconv", *tips, "--not", *held]
    argv += [f"--remotes={remote}", "--"] if _remote_name(repo, remote) else ["--"]
    out = repo.run(*argv)
    blobs: dict[str, list[tuple[str, str, str]]] = {}  # blob: (ref, commit, where)
    named: set[str] = set()  # the names read: each once
    for commit, source, message, changes in parse_log(out, mark.encode()):
        ref = tips.get(source, source)
        yield Found(ref, f"commit {commit[:SHORT]}", "message", message)
        for path, blob in changes:
            if notes:
                where = f"note on {path.replace('/', '')[:SHORT]}"
            elif _pushed_note_file(config, path):
                where = path
                if path not in named:  # its name is pushed too, and the pre-commit check reads it
                    named.add(path)
                    yield Found(ref, f"commit {commit[:SHORT]}", path, path, named=True)
            else:
                continue
            blobs.setdefault(blob, []).append((ref, f"commit {commit[:SHORT]}", where))
    if not blobs:
        return
    from memidx.githooks.secret_check import masked, text_of
    from memidx.notes.note import is_note_path

    for blob, size, data in repo.read_blobs([(b, 0) for b in blobs], BLOB_LIMIT):
        for ref, what, where in blobs[blob]:
            shown = where if notes else masked(where)
            if data is None:  # too large to read: never let through unchecked
                yield Found(
                    ref, what, shown, "", f"not checked for secrets: too large ({size} bytes)"
                )
            elif (
                text := text_of(data, notes or is_note_path(where, config.notes_dir))
            ) is not None:
                yield Found(ref, what, shown, text)


def _remote_name(repo: GitRepo, remote: str) -> bool:
    """Whether git named a configured remote (not a URL or path given to `git push`): its
    tracking branches are refs/remotes/<name>/*. A name may hold `/` (`team/origin`); one
    holding a glob character would match other remotes' branches too."""
    if not remote or any(c in remote for c in "*?[\\"):
        return False
    return bool(repo.run("config", "--get", f"remote.{remote}.url", check=False).strip())


def _pushed_note_file(config: Config, path: str) -> bool:
    """A file under the notes folder that the pre-commit check reads (a haystack segment is
    written by memidx, its records redacted when filed, and is not read again here)."""
    pure = PurePosixPath(path)
    if not pure.is_relative_to(config.notes_dir):
        return False
    return not (path.endswith(".krd") and pure.is_relative_to(f"{config.notes_dir}/haystack"))


MODE_BLOB = ("100644", "100755", "120000")  # a file or a symlink's target: pushed as a blob


def parse_log(
    out: bytes, mark: bytes = b"\x01"
) -> Iterator[tuple[str, str, str, list[tuple[str, str]]]]:
    """(commit, source, message, [(path, new blob)]) of each commit in the output of `git log
    -z --format=<mark>%H %S%n%B --raw --no-abbrev -c`: a merge lists a path only when it
    differs from every parent, with one mode and id per parent, then the merge's own."""
    for entry in out.split(mark)[1:]:
        head, _, rest = entry.partition(b"\0")
        first, _, message = head.partition(b"\n")
        commit, _, source = first.decode("ascii", "replace").partition(" ")
        changes: list[tuple[str, str]] = []
        fields = rest.split(b"\0")
        i = 0
        while i + 1 < len(fields):
            meta = fields[i].strip(b"\n")
            if not meta.startswith(b":"):
                i += 1
                continue
            parents = len(meta) - len(meta.lstrip(b":"))
            parts = meta.lstrip(b":").split()
            mode, blob = parts[parents].decode(), parts[2 * parents + 1].decode()
            if mode in MODE_BLOB and not absent(blob):
                changes.append((decode_path(fields[i + 1]), blob))
            i += 2
        yield commit, source, message.decode("utf-8", "replace"), changes
