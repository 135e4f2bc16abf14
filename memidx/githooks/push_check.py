"""The pre-push check: what a `git push` sends to one remote holds no secret. git runs no
message hook for a commit made with `--no-verify` or carried over whole by `git cherry-pick`
or `git rebase`, none for an annotated tag's message or a git note, and no pre-commit check
for a note committed with `--no-verify`: all of them leave with a plain `git push`.

git's pre-push hook gets `<local ref> <local oid> <remote ref> <remote oid>` lines on stdin
(memidx.githooks.push_refs). What goes to that remote is, for each ref, the commits `<local
oid> --not <remote oid> --remotes=<remote>`: the remote holds what its own tracking branches
and the old values of the refs pushed hold (a commit only another remote holds goes out). For
each: its message (read whole from its object when `git log` cannot show it all: a NUL, a
header the log shows not), author and committer, and the files under the notes folder it adds
or changes, names and text (a merge: those that differ from every parent; a haystack segment:
the records it adds, memidx.githooks.push_segments); an annotated tag's message, name and
tagger (memidx.githooks.push_tags); the name of each ref the remote lacks; for refs/notes/*
(from or to), the notes' text; for a ref pushed at a blob or a tree (or a tag of one), its text
or files (memidx.githooks.push_files). Same detectors, allow marker and baseline as the
pre-commit check (memidx.githooks.secret_check).
One line per secret, never the secret: `<remote ref>: commit <id>: <file>:<line>: <kind>`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import PurePosixPath

from memidx.config import Config
from memidx.git.repo import GitRepo
from memidx.githooks.push_files import SHORT, Found, Pending
from memidx.githooks.push_refs import (
    REMOTES,
    Kinds,
    Update,
    absent,
    kind_of,
    object_types,
    remote_settings,
    tracking_branches,
)
from memidx.githooks.push_tags import tag_messages
from memidx.notes.note import is_note_path

TYPE_CHECKING = False  # not typing's: a push of tags alone never reads a log
if TYPE_CHECKING:
    from memidx.githooks.push_log import Sent
    from memidx.githooks.readings import Utf8Found

NOTES_REFS = "refs/notes/"
FLUSH = 4096  # the files read together: what a first push of a long history holds at once


def push_problems(
    config: Config, remote: str, updates: Sequence[Update], unread: list[str] | None = None
) -> list[str]:
    """One `<remote ref>: <what>: <where>:<line>: <kind>` line per secret the push to `remote`
    would send that neither an allow marker nor the baseline allows, and one per thing too
    large to read (added to `unread` too: no allow marker or baseline lets it through)."""
    sent = [u for u in updates if not absent(u.local_oid)]  # a deletion sends nothing
    if not sent:
        return []
    from memidx.githooks.secret_check import BASELINE, masked, read_baseline
    from memidx.hashes import sha256_hex
    from memidx.secrets.detect import Finding, find_secrets
    from memidx.secrets.patterns import LineNumbers, redact
    from memidx.text import display

    problems: list[str] = []
    allowed: set[str] | None = None  # read only when a secret is found
    refs: dict[str, str] = {}  # each ref as the lines name it: a secret in its name masked
    fields: dict[str, list[Finding]] = {}  # what each one-line field holds, read once
    said: set[tuple[str, ...]] = set()  # a secret a commit's two readings both hold: once
    plain: Plain | None = None  # the secrets of a text's UTF-8 reading, by place
    for found in pushed_texts(config, remote, sent):
        ref = refs.get(found.ref) or refs.setdefault(found.ref, masked(found.ref))
        first, plain = _first_reading(found, plain)
        if found.unread:
            where = f"{masked(found.where)}: " if found.where else ""  # a blob pushed straight
            problems.append(f"{ref}: {found.what}: {where}{found.unread}")
            if unread is not None:
                unread.append(problems[-1])
        if found.lines:
            secrets = find_secrets(found.text, allow=True)
        else:  # a field of one line (an author): most commits repeat a few, read each once
            secrets = fields.get(found.text)
            if secrets is None:
                secrets = fields[found.text] = find_secrets(found.text, allow=True)
        lines = LineNumbers(found.text)
        for secret in secrets:
            twin = _twin(found, first, plain, secret.start, secret.end)
            if allowed is None:
                allowed = read_baseline(config.root / BASELINE)
            fingerprint = sha256_hex(
                found.text[secret.start : secret.end].encode("utf-8", "replace")
            )
            if fingerprint in allowed:
                continue
            where = _place(found, lines.of(secret.start))
            kind = secret.kind + found.about
            if twin or _said_already(said, (ref, found.what, where, kind, fingerprint)):
                continue
            if found.named:  # as the pre-commit check names it: masked, never the secret
                where, kind = display(redact(found.text, secrets)), f"{kind} in the file name"
            problems.append(": ".join(part for part in (ref, found.what, where, kind) if part))
    return problems


Plain = tuple[tuple[str, ...], "Utf8Found"]  # a text's place, its secrets by place


def _first_reading(found: Found, plain: Plain | None) -> tuple[Utf8Found | None, Plain | None]:
    """The secrets of the first reading `found` is a second reading of (a secret on bytes
    one of them stands on is the same, said once): the UTF-8 one of a Latin-1 reading, the
    one in the commit's encoding of a message's UTF-8 reading beside it; None when it is no
    such reading; and what to compare the next text with. A header's field names its
    reading in its name (`author (read as Latin-1)`), a message in `about`."""
    from memidx.githooks.latin1 import AS_LATIN1
    from memidx.githooks.readings import AS_UTF8, Utf8Found

    key = (found.ref, found.what, found.where.removesuffix(AS_LATIN1))
    if found.data and plain and plain[0] == (*key[:2], found.where.removesuffix(AS_UTF8)):
        return plain[1], plain  # as UTF-8 beside the commit's encoding: `author (read as UTF-8)`
    if found.about != AS_LATIN1 and not found.where.endswith(AS_LATIN1):
        return None, (key, Utf8Found(found.text))
    return (plain[1] if plain and plain[0] == key else None), plain


def _twin(found: Found, first: Utf8Found | None, plain: Plain | None, start: int, end: int) -> bool:
    """Whether the secret found.text[start:end] of a second reading stands on bytes a secret
    of the first one, `first`, stands on (one of them U+FFFD there, é here): the same, said
    once; a Latin-1 reading's first is its UTF-8 one, a UTF-8 one's that in its commit's
    encoding. One of a first reading is noted in `plain`."""
    if first is not None and found.data:
        return first.holds_as_utf8(found.data, found.encoding, found.text, start, end)
    if first is not None:
        return first.holds(found.text, start, end)
    if plain is not None:
        plain[1].add(start, end)
    return False


def _said_already(said: set[tuple[str, ...]], line: tuple[str, ...]) -> bool:
    """Whether a secret a second reading of a message holds (memidx.githooks.readings.
    readings: as UTF-8 beside its commit's encoding, as Latin-1 beside UTF-8) was said from
    the first: same place, kind and text. Notes it."""
    from memidx.githooks.readings import LABELS

    plain = tuple(_unlabelled(part, LABELS) for part in line)
    if plain != line and plain in said:
        return True
    said.add(plain)
    return False


def _unlabelled(part: str, labels: Sequence[str]) -> str:
    """`part` without the label a reading adds to a secret's kind, if it ends with one."""
    for label in labels:
        if part.endswith(label):
            return part.removesuffix(label)
    return part


def _place(found: Found, line: int) -> str:
    """Where a secret is: `message line 3`, `line 3` of a blob pushed straight, `<file>:3`,
    a segment's `<file>@<offset>:3` (its labels': `<file>@<offset>`), any secret in a file's
    name masked (a note holding one in both its name and its text is never named whole)."""
    from memidx.githooks.secret_check import masked

    if found.where in ("message", "") and found.lines:
        return f"{found.where} line {line}".lstrip()
    where = masked(found.where)
    return f"{where}:{line}" if found.lines else where


def pushed_texts(config: Config, remote: str, sent: Sequence[Update]) -> Iterator[Found]:
    """The messages, tag messages, notes and git notes the push sends (see the docstring)."""
    from memidx.githooks.push_files import object_texts

    repo = GitRepo(config.root)
    oids = [u.local_oid for u in sent] + [u.remote_oid for u in sent if not absent(u.remote_oid)]
    tracking = tracking_branches(remote, sent)
    kinds = object_types(repo, [*oids, *(f"{oid}^{{}}" for oid in oids), *tracking])
    stale = [name for name, oid in tracking.items() if name in kinds and kinds[name][1] != oid]
    # `git log` takes what peels to a commit (a tag of a tree or a blob has no history)
    held = [oid for oid in oids[len(sent) :] if _commit(kinds, oid)]  # old values git knows
    # git sends the name of each ref it updates: a new one's the remote never had
    for ref in dict.fromkeys(u.remote_ref for u in sent if absent(u.remote_oid)):
        yield Found(ref, "ref name", "", ref, lines=False)
    yield from tag_messages(repo, sent, kinds)
    straight = [(u.remote_ref, *kinds[f"{u.local_oid}^{{}}"]) for u in sent if _content(kinds, u)]
    if straight:  # a ref pushed at a blob or a tree, or at a tag of one
        yield from object_texts(repo, straight)
    for notes in (False, True):
        group = [u for u in sent if _notes(u) == notes and _commit(kinds, u.local_oid)]
        if group:
            yield from _commits(config, repo, remote, group, held, stale=stale, notes=notes)


def _notes(update: Update) -> bool:
    """Whether git notes are pushed: from or to refs/notes/ (`git push origin
    refs/notes/commits:refs/heads/backup` sends every note as a file of a branch)."""
    return update.local_ref.startswith(NOTES_REFS) or update.remote_ref.startswith(NOTES_REFS)


def _commit(kinds: Kinds, oid: str) -> bool:
    return kind_of(kinds, f"{oid}^{{}}") == "commit"


def _content(kinds: Kinds, update: Update) -> bool:
    """Whether the ref is pushed at a blob or a tree (or a tag that peels to one)."""
    return kind_of(kinds, f"{update.local_oid}^{{}}") in ("blob", "tree")


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
    named_remote, partial, nested = remote_settings(repo, remote)
    tracking = remote if named_remote and remote else None
    notes_dir, haystack = _folders(config)
    pending: list[Pending] = []
    waiting: list[tuple[Sent, str, str]] = []  # commits read with the files: their messages
    names: dict[str, list[Found]] = {}  # the names each commit pushes, read once each
    named: set[str] = set()
    # `--remotes=team` takes refs/remotes/team/*: the remote `team/origin`'s branches too
    excluded = [name[len(REMOTES) :] for name in stale] + nested
    for sent in sent_commits(repo, list(tips), held, tracking, excluded):
        ref, what = tips.get(sent.source, sent.source), f"commit {sent.commit[:SHORT]}"
        waiting.append((sent, ref, what))
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
                names.setdefault(sent.commit, []).append(Found(ref, what, path, path, named=True))
            segment = path.startswith(haystack) and path.endswith(".krd")
            note = segment or is_note_path(path, notes_dir[:-1])
            pending.append(Pending(blob, ref, what, path, note, segment, before if segment else ()))
        if len(pending) >= FLUSH or len(waiting) >= FLUSH:
            yield from _read(repo, waiting, names, pending, partial)
    yield from _read(repo, waiting, names, pending, partial)


def _read(
    repo: GitRepo,
    waiting: list[tuple[Sent, str, str]],
    names: dict[str, list[Found]],
    pending: list[Pending],
    partial: bool,
) -> Iterator[Found]:
    """The messages, authors and committers of the waiting commits, the names they push, and
    the texts of the pending blobs, each read once; empties all three."""
    from memidx.githooks.push_files import read_pending
    from memidx.githooks.push_headers import commit_texts

    commits, batch = list(waiting), list(pending)
    waiting.clear()
    pending.clear()
    for commit, found in commit_texts(repo, commits):
        yield from found
        yield from names.pop(commit, ())
    if batch:
        yield from read_pending(repo, batch, partial=partial)


def _folders(config: Config) -> tuple[str, str]:
    """The notes folder and its haystack folder as git lists paths under them: `notes/`."""
    notes = PurePosixPath(config.notes_dir).as_posix()
    return f"{notes}/", f"{notes}/haystack/"
