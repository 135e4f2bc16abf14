"""The pre-push check: what a `git push` sends to one remote holds no secret. git runs no
message hook for a commit made with `--no-verify` or carried over whole by `git cherry-pick`
or `git rebase`, none for an annotated tag's message or a git note, and no pre-commit check
for a note committed with `--no-verify`: all of them leave with a plain `git push`.

git's pre-push hook gets `<local ref> <local oid> <remote ref> <remote oid>` lines on stdin.
What goes to that remote is, for each ref, the commits `<local oid> --not <remote oid>
--remotes=<remote>`: the remote holds what its own tracking branches and the old values of the
refs pushed hold (a commit only another remote holds goes out). For each: its message, and the
files under the notes folder it adds or changes, names and text (a merge: those that differ
from every parent; a haystack segment: the records it adds, memidx.githooks.push_segments);
an annotated tag's message; for refs/notes/* (from or to), the notes' text; for a ref pushed
at a blob or a tree (or a tag of one), its text or files (memidx.githooks.push_files). Same
detectors, allow marker and baseline as the pre-commit check (memidx.githooks.secret_check).
One line per secret, never the secret: `<remote ref>: commit <id>: <file>:<line>: <kind>`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import PurePosixPath

from memidx.config import Config
from memidx.errors import UsageError
from memidx.frozen import Value
from memidx.git.repo import GitRepo
from memidx.githooks.push_files import BLOB_LIMIT, SHORT, Found, Pending
from memidx.notes.note import is_note_path

NOTES_REFS = "refs/notes/"
FLUSH = 4096  # the files read together: what a first push of a long history holds at once


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


def push_problems(config: Config, remote: str, updates: Sequence[Update]) -> list[str]:
    """One `<remote ref>: <what>: <where>:<line>: <kind>` line per secret the push to `remote`
    would send that neither an allow marker nor the baseline allows."""
    sent = [u for u in updates if not absent(u.local_oid)]  # a deletion sends nothing
    if not sent:
        return []
    from memidx.githooks.secret_check import BASELINE, masked, read_baseline
    from memidx.hashes import sha256_hex
    from memidx.secrets.detect import find_secrets
    from memidx.secrets.patterns import line_of, redact
    from memidx.text import display

    problems: list[str] = []
    allowed: set[str] | None = None  # read only when a secret is found
    for found in pushed_texts(config, remote, sent):
        if found.unread:
            problems.append(f"{found.ref}: {found.what}: {masked(found.where)}: {found.unread}")
        secrets = find_secrets(found.text, allow=True)
        for secret in secrets:
            if allowed is None:
                allowed = read_baseline(config.root / BASELINE)
            fingerprint = found.text[secret.start : secret.end].encode("utf-8", "replace")
            if sha256_hex(fingerprint) in allowed:
                continue
            where = _place(found, line_of(found.text, secret.start))
            kind = secret.kind + found.about
            if found.named:  # as the pre-commit check names it: masked, never the secret
                where, kind = display(redact(found.text, secrets)), f"{kind} in the file name"
            problems.append(f"{found.ref}: {found.what}: {where}: {kind}")
    return problems


def _place(found: Found, line: int) -> str:
    """Where a secret is: `message line 3`, `line 3` of a blob pushed straight, `<file>:3`,
    a segment's `<file>@<offset>:3` (its labels': `<file>@<offset>`), any secret in a file's
    name masked (a note holding one in both its name and its text is never named whole)."""
    from memidx.githooks.secret_check import masked

    if found.where in ("message", ""):
        return f"{found.where} line {line}".lstrip()
    where = masked(found.where)
    return f"{where}:{line}" if found.lines else where


def pushed_texts(config: Config, remote: str, sent: Sequence[Update]) -> Iterator[Found]:
    """The messages, tag messages, notes and git notes the push sends (see the docstring)."""
    from memidx.githooks.push_files import object_texts

    repo = GitRepo(config.root)
    oids = [u.local_oid for u in sent] + [u.remote_oid for u in sent if not absent(u.remote_oid)]
    tracking = _tracking(remote, sent)
    kinds = object_types(repo, [*oids, *(f"{oid}^{{}}" for oid in oids), *tracking])
    stale = [name for name, oid in tracking.items() if name in kinds and kinds[name][1] != oid]
    # `git log` takes what peels to a commit (a tag of a tree or a blob has no history)
    held = [oid for oid in oids[len(sent) :] if _commit(kinds, oid)]  # old values git knows
    yield from _tag_messages(repo, sent, kinds)
    straight = [(u.remote_ref, *kinds[f"{u.local_oid}^{{}}"]) for u in sent if _content(kinds, u)]
    if straight:  # a ref pushed at a blob or a tree, or at a tag of one
        yield from object_texts(repo, straight)
    for notes in (False, True):
        group = [u for u in sent if _notes(u) == notes and _commit(kinds, u.local_oid)]
        if group:
            yield from _commits(config, repo, remote, group, held, stale=stale, notes=notes)


Kinds = dict[str, tuple[str, str]]  # an object's name: its type and id (peeled for `X^{}`)
REMOTES, HEADS = "refs/remotes/", "refs/heads/"


def _tracking(remote: str, sent: Sequence[Update]) -> dict[str, str]:
    """The tracking branch (`refs/remotes/origin/main`, as git's default fetch names it) of
    each branch pushed and the value git says the remote holds now (`` for a branch it lacks).
    One that disagrees is stale: the remote's branch moved or was deleted (from another clone,
    to take a secret out) since the last fetch, and what the tracking branch holds is no longer
    known to be on the remote (git sends what the remote's own refs lack). `share` gives the
    tracking branch's own value (memidx.githooks.outgoing_check), as git's own log trusts it."""
    if not remote or "\n" in remote:
        return {}
    return {
        f"{REMOTES}{remote}/{u.remote_ref[len(HEADS) :]}": ""
        if absent(u.remote_oid)
        else u.remote_oid
        for u in sent
        if u.remote_ref.startswith(HEADS)
    }


def _notes(update: Update) -> bool:
    """Whether git notes are pushed: from or to refs/notes/ (`git push origin
    refs/notes/commits:refs/heads/backup` sends every note as a file of a branch)."""
    return update.local_ref.startswith(NOTES_REFS) or update.remote_ref.startswith(NOTES_REFS)


def _kind(kinds: Kinds, name: str) -> str | None:
    return kinds[name][0] if name in kinds else None


def _commit(kinds: Kinds, oid: str) -> bool:
    return _kind(kinds, f"{oid}^{{}}") == "commit"


def _content(kinds: Kinds, update: Update) -> bool:
    """Whether the ref is pushed at a blob or a tree (or a tag that peels to one)."""
    return _kind(kinds, f"{update.local_oid}^{{}}") in ("blob", "tree")


def object_types(repo: GitRepo, names: Sequence[str]) -> Kinds:
    """The type and id of each object named (none for one this repository lacks)."""
    unique = list(dict.fromkeys(names))
    out = repo.run(
        "cat-file", "--batch-check", input_bytes="".join(f"{o}\n" for o in unique).encode()
    )
    kinds: Kinds = {}
    for name, line in zip(unique, out.decode("ascii", "replace").splitlines(), strict=False):
        fields = line.split()
        if len(fields) == 3:
            kinds[name] = (fields[1], fields[0])
    return kinds


def _tag_messages(repo: GitRepo, sent: Sequence[Update], kinds: Kinds) -> Iterator[Found]:
    """The message of each annotated tag pushed (and of a tag it points to)."""
    tags = {u.local_oid: u.remote_ref for u in sent if _kind(kinds, u.local_oid) == "tag"}
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
    stale: Sequence[str],
    notes: bool,
) -> Iterator[Found]:
    """The messages of the commits the push sends for `group`, and the files they add or
    change: under the notes folder, or for a notes ref every note. git's log is read as it
    comes and the files read every FLUSH of them, so a first push of a long history holds
    neither whole; a blob is read once per FLUSH files, whatever places it has among them."""
    from memidx.githooks.push_log import sent_commits

    tips = {u.local_oid: u.remote_ref for u in reversed(group)}  # the first ref named wins
    named_remote, partial, nested = _settings(repo, remote)
    tracking = remote if named_remote and remote else None
    notes_dir, haystack = _folders(config)
    pending: list[Pending] = []
    named: set[str] = set()  # the names read: each once
    # `--remotes=team` takes refs/remotes/team/*: the remote `team/origin`'s branches too
    excluded = [name[len(REMOTES) :] for name in stale] + nested
    for sent in sent_commits(repo, list(tips), held, tracking, excluded):
        ref, what = tips.get(sent.source, sent.source), f"commit {sent.commit[:SHORT]}"
        yield Found(ref, what, "message", sent.message)
        for path, blob, before in ((c.path, c.blob, c.before) for c in sent.changes):
            if notes:
                pending.append(
                    Pending(blob, ref, what, f"note on {path.replace('/', '')[:SHORT]}", True)
                )
                continue
            if not path.startswith(notes_dir):
                continue
            if path not in named:  # its name is pushed too, and the pre-commit check reads it
                named.add(path)
                yield Found(ref, what, path, path, named=True)
            segment = path.startswith(haystack) and path.endswith(".krd")
            note = segment or is_note_path(path, notes_dir[:-1])
            pending.append(Pending(blob, ref, what, path, note, segment, before if segment else ()))
        if len(pending) >= FLUSH:
            yield from _read(repo, pending, partial)
    yield from _read(repo, pending, partial)


def _read(repo: GitRepo, pending: list[Pending], partial: bool) -> Iterator[Found]:
    """The texts of the pending blobs, each read once; empties `pending`."""
    from memidx.githooks.push_files import read_pending

    batch = list(pending)
    pending.clear()
    if batch:
        yield from read_pending(repo, batch, partial=partial)


def _folders(config: Config) -> tuple[str, str]:
    """The notes folder and its haystack folder as git lists paths under them: `notes/`."""
    notes = PurePosixPath(config.notes_dir).as_posix()
    return f"{notes}/", f"{notes}/haystack/"


def _settings(repo: GitRepo, remote: str) -> tuple[bool, bool, list[str]]:
    """Whether git named a configured remote (not a URL or path given to `git push`): its
    tracking branches are refs/remotes/<name>/*. A name may hold `/` (`team/origin`); one
    holding a glob character would match other remotes' branches too. Whether this is a
    partial clone (memidx.git.inherited.partial_clone). And the remotes under its folder
    (`team/origin` for `team`) as `--exclude` patterns: it holds none of theirs. One call."""
    keys = r"^(remote\..*\.(url|promisor)|extensions\.partialclone)$"
    out = repo.run("config", "-z", "--get-regexp", keys, check=False)
    named = partial = False
    nested: dict[str, None] = {}
    for entry in out.split(b"\0"):
        key, _, value = entry.decode("utf-8", "surrogateescape").partition("\n")
        if key == f"remote.{remote}.url" and value.strip():
            named = not any(c in remote for c in "*?[\\")
        elif key.startswith(f"remote.{remote}/") and key.endswith(".url"):
            name = key[len("remote.") : -len(".url")]  # as a pattern that matches only it
            nested["".join(f"\\{c}" if c in "*?[\\" else c for c in name) + "/*"] = None
        elif key.endswith((".promisor", ".partialclone")):
            partial = partial or value != "false"
    return named, partial, list(nested)
