"""The pre-commit secret check: a staged file under the notes folder (a note, a haystack
segment, or any other text file there: it is pushed with them) that holds a secret blocks
the commit. Each problem is one line, `file:line: <kind>` (a segment's record as
`segment@offset:line`), never the secret. A line carrying `memidx: allow-secret` is allowed;
so is a secret whose fingerprint (SHA-256 of its text) is in the baseline file."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from memidx.config import Config
from memidx.hashes import sha256_hex
from memidx.notes.note import is_note_path
from memidx.text import display

BASELINE = ".memidx-secrets-baseline"  # at the repository root
BASELINE_HEAD = (
    "# Secrets memidx's check allows: `<kind> <sha256 of the secret>` a line (never the secret).\n"
    "# Written by `memidx check secrets FILES --update-baseline`.\n"
)


@dataclass(frozen=True, slots=True)
class Flagged:
    """A secret in a staged file: where, what kind, and its fingerprint."""

    where: str
    kind: str
    fingerprint: str
    ref: str  # the file it is in
    what: str = ""  # ` in the file name` for a secret in the path, which is pushed too


def check_secrets(
    config: Config,
    files: Sequence[str],
    baseline: Path | None = None,
    unread: list[str] | None = None,
) -> list[str]:
    """One `file:line: <kind>` line per secret in the given notes and segments that neither an
    allow marker nor the baseline allows, and one per file too large to read (added to
    `unread` too). During a merge, cherry-pick or rebase step, a file staged as HEAD or the
    other side committed it blocks only where refusing the commit keeps the secret in, and is
    named in a warning elsewhere (memidx.githooks.inherited_check)."""
    allowed = read_baseline(baseline or config.root / BASELINE)
    large: dict[str, str] = {}  # too large to read: never let through unchecked
    problems: dict[str, list[str]] = {}
    for f in flagged(config, files, large):
        if f.fingerprint not in allowed:
            problems.setdefault(f.ref, []).append(f"{f.where}: {f.kind}{f.what}")
    for ref, line in large.items():  # judged with its file, as what a merge may inherit
        problems.setdefault(ref, []).append(line)
    if not problems:
        return []  # the usual commit: the merge checks' modules are never imported (~4 ms)
    from memidx.githooks.inherited_check import judged, secret_notice

    kept = judged(config, problems, secret_notice, pushed=True)
    if unread is not None:
        unread.extend(line for line in kept if line in large.values())
    return kept


def update_baseline(config: Config, files: Sequence[str], baseline: Path | None = None) -> int:
    """Add the fingerprints of every secret in `files` to the baseline; returns how many new."""
    found = {f.fingerprint: f.kind for f in flagged(config, files)}
    return add_to_baseline(baseline or config.root / BASELINE, found)


def add_to_baseline(path: Path, found: Mapping[str, str]) -> int:
    """Add the fingerprints of `found` (fingerprint: kind) the baseline lacks; how many."""
    known = read_baseline(path)
    new = {fingerprint: kind for fingerprint, kind in found.items() if fingerprint not in known}
    if new:
        head = "" if path.exists() else BASELINE_HEAD
        with path.open("a", encoding="utf-8") as out:
            out.write(head + "".join(f"{kind} {fp}\n" for fp, kind in sorted(new.items())))
    return len(new)


def read_baseline(path: Path) -> set[str]:
    """The fingerprints a baseline file allows (`<kind> <sha256>` lines, `#` comments);
    UsageError naming the file and line of anything else (a baseline that allowed nothing it
    was meant to, without a word)."""
    import re

    from memidx.errors import UsageError

    try:
        lines = path.read_bytes().decode("utf-8").splitlines()
    except FileNotFoundError:
        return set()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{display(str(path))} cannot be read as a baseline: {exc}") from exc
    allowed: set[str] = set()
    for number, line in enumerate(lines, 1):
        parts = line.split("#")[0].split()
        if not parts:
            continue
        if len(parts) != 2 or not re.fullmatch(r"[0-9a-f]{64}", parts[1]):
            raise UsageError(
                f"{display(str(path))}:{number} is no `<kind> <sha256>` line of a baseline",
                "fix or delete it; `memidx check secrets FILES --update-baseline` writes them",
            )
        allowed.add(parts[1])
    return allowed


def flagged(
    config: Config, files: Sequence[str], unread: dict[str, str] | None = None
) -> Iterator[Flagged]:
    """Every secret in the given notes and segments that no allow marker allows, and in their
    names (the name shown with the secret masked)."""
    from memidx.githooks.latin1 import AS_LATIN1
    from memidx.githooks.push_segments import IN_LABELS  # one string of labels: no line
    from memidx.githooks.readings import Utf8Found
    from memidx.secrets.detect import find_secrets
    from memidx.secrets.patterns import LineNumbers, redact

    for ref in _refs(config, files):
        if found := find_secrets(ref):
            where = display(redact(ref, found))
            for secret in found:
                fingerprint = sha256_hex(ref[secret.start : secret.end].encode("utf-8", "replace"))
                yield Flagged(where, secret.kind, fingerprint, ref, " in the file name")
    said: set[tuple[str, str, str, str]] = set()  # a secret a file's two readings hold: once
    plain = (("", ""), Utf8Found(""))  # a text and the secrets of its UTF-8 reading
    for ref, label, text, what in _texts(config, files, {} if unread is None else unread):
        latin1 = what == AS_LATIN1 and plain[0] == (ref, label)
        if what != AS_LATIN1:
            plain = ((ref, label), Utf8Found(text))
        lines = LineNumbers(text)
        for found in find_secrets(text, allow=True):
            secret = text[found.start : found.end]
            where = label if what == IN_LABELS else f"{label}:{lines.of(found.start)}"
            fingerprint = sha256_hex(secret.encode("utf-8"))
            place = (ref, where, found.kind, fingerprint)
            if what == AS_LATIN1 and (
                place in said or (latin1 and plain[1].holds(text, found.start, found.end))
            ):
                continue  # as UTF-8 too, or on its bytes, one of them U+FFFD there, é here
            said.add(place)
            if what != AS_LATIN1:
                plain[1].add(found.start, found.end)
            yield Flagged(where, found.kind, fingerprint, ref, what)


LINK_TARGET = " in the symlink's target"
SEGMENT_LIMIT = 64 * 1024 * 1024  # a segment rolls over at `segment_bytes`; this is a guard


def _texts(
    config: Config, files: Sequence[str], unread: dict[str, str]
) -> Iterator[tuple[str, str, str, str]]:
    """(file, label, text, what) of each note and other text file, of each record of each
    segment (its text, its labels, and bytes that are no record), and of each symlink's target
    (never followed: git pushes the target's path as the link's blob), among `files`: what is
    staged (git's index), never the work tree, like the other checks. A file too large to
    read gets its problem line in `unread`."""
    from memidx.githooks.checks import staged_contents
    from memidx.githooks.push_segments import segment_parts

    refs = _refs(config, files)
    haystack = PurePosixPath(config.notes_dir) / "haystack"
    limit = max(config.max_note_bytes, SEGMENT_LIMIT)
    links: dict[str, bytes] = {}
    for ref, data in staged_contents(config, refs, limit, links).items():
        if ref in links:
            yield ref, masked(ref), links[ref].decode("utf-8", "replace"), LINK_TARGET
        if isinstance(data, str) and data.startswith("too large"):
            unread[ref] = f"{masked(ref)}: not checked for secrets: {data}"
        if not isinstance(data, bytes):
            continue  # deleted, a link or unreadable: the drift check reports those
        if ref.endswith(".krd") and PurePosixPath(ref).is_relative_to(haystack):
            for part in segment_parts(data):  # labels and damage too: --no-verify, by hand
                yield ref, f"{masked(ref)}@{part.offset}", part.text, part.about
        else:
            for text, how in file_texts(data, is_note_path(ref, config.notes_dir)):
                yield ref, masked(ref), text, how


def masked(ref: str) -> str:
    """`ref` as a problem line names it: display(), any secret in the name redacted (a note
    holding one in both its name and its text was named whole, the secret with it)."""
    from memidx.secrets.detect import find_secrets
    from memidx.secrets.patterns import redact

    return display(redact(ref, found) if (found := find_secrets(ref)) else ref)


BINARY_PROBE = 8000  # bytes read for a NUL, as git tells a binary file from text
UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")  # what Windows PowerShell 5.1's `>` writes
UTF32_MARKS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")  # `Out-File -Encoding utf32`


def text_of(data: bytes, note: bool) -> str | None:
    """A staged file's text (UTF-16 or UTF-32 when it opens with a byte-order mark, whose NUL
    bytes are no sign of a binary file), or None for a binary file."""
    if data.startswith(UTF32_MARKS):  # before UTF-16: the little-endian marks begin alike
        return data.decode("utf-32", "replace")
    if data.startswith(UTF16_MARKS):
        return data.decode("utf-16", "replace")
    if note or b"\0" not in data[:BINARY_PROBE]:
        return data.decode("utf-8", "replace")
    return None


def file_texts(data: bytes, note: bool) -> list[tuple[str, str]]:
    """A staged or pushed file's readings (none for a binary file), each with what a secret
    only it holds is named: its text (text_of) and, when that was UTF-8 and the bytes are no
    valid UTF-8, the same bytes as Latin-1 (memidx.githooks.latin1): a Latin-1 note's
    no-break space read as UTF-8 was U+FFFD beside a secret, which went unseen."""
    from memidx.githooks.latin1 import latin1_reading

    text = text_of(data, note)
    if text is None:
        return []
    if data.startswith(UTF16_MARKS + UTF32_MARKS):  # read by their mark, never as Latin-1
        return [(text, "")]
    return [(text, ""), *latin1_reading(data, text)]


def _refs(config: Config, files: Sequence[str]) -> list[str]:
    """The files under the notes folder among the files pre-commit passes."""
    from memidx.githooks.checks import passed_refs  # here: the push checks load this module

    notes = config.notes_dir
    return [ref for ref in passed_refs(config, files) if PurePosixPath(ref).is_relative_to(notes)]
