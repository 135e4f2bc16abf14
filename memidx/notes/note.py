"""Parse a Markdown note: front matter, title, tags, body (pure: bytes in, values out)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath

from memidx.frozen import Value
from memidx.hashes import content_hash
from memidx.notes.frontmatter import RULE_HINT, Fields, FrontMatterError, read_fields
from memidx.notes.markdown import conflict_start, front_matter_end, scan
from memidx.notes.private_body import indexed_body
from memidx.notes.yaml_comments import Cut
from memidx.private import PRIVATE_STAND_IN, own_stand_ins, private_ranges, without_private
from memidx.text import is_utf8

# yaml is imported only for front matter beyond the simple shape (memidx.notes.frontmatter), not
# when memidx.notes.note is: the search path imports this module and must not pay ~19 ms for it.
_TITLE_KEY = re.compile(r"title\s*:")


class Note(Value):
    """A parsed note, ready to be stored."""

    ref: str
    title: str
    tags: tuple[str, ...]
    aliases: tuple[str, ...]
    body: str
    body_line: int
    created: str | None
    lang: str | None
    content_hash: str
    cut: tuple[Cut, ...] = ()  # front-matter values YAML ended at a comment: warned of


class NoteError(ValueError):
    """A file under notes/ that cannot be indexed; the message says why, `line` where."""

    def __init__(self, message: str, line: int = 1) -> None:
        super().__init__(message)
        self.line = line


def has_note_suffix(name: str) -> bool:
    """Whether a file name ends as a note's does: `.md`, in any case (`Deploy.MD`, as Windows
    and old tools write it, was neither indexed nor listed anywhere, lost without a word)."""
    return name[-3:].lower() == ".md"


def is_note_path(ref: str, notes_dir: str) -> bool:
    """True for `*.md` files (any case) under the notes folder, skipping dotfiles and
    dot-folders, and names that are not UTF-8 (git's bytes as lone surrogates): no text, so
    no row can hold them, and one such ref failed the whole index."""
    if not ref.isascii() and not is_utf8(ref):
        return False
    if _plain(ref) and _plain(notes_dir):  # as git lists paths: string tests, ~10x faster
        prefix = notes_dir + "/"
        if not has_note_suffix(ref) or not ref.startswith(prefix):
            return False
        return not any(part.startswith(".") for part in ref[len(prefix) :].split("/"))
    path = PurePosixPath(ref)
    if not has_note_suffix(path.name) or not path.is_relative_to(notes_dir):
        return False
    return not any(part.startswith(".") for part in path.relative_to(notes_dir).parts)


# Why a file that would be a note but for its name is not indexed (memidx.index.sync).
NAME_NOT_UTF8 = "its file name is not UTF-8 (rename it with `git mv`)"


def is_note_path_not_utf8(ref: str, notes_dir: str) -> bool:
    """True for a path is_note_path refuses only because its name is not UTF-8: a note that
    cannot be indexed, named to the user as a skipped one."""
    if ref.isascii() or is_utf8(ref):
        return False
    readable = ref.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return is_note_path(readable, notes_dir)


def _plain(path: str) -> bool:
    """A relative path already in the form PurePosixPath gives it: no empty or `.` part."""
    parts = path.split("/")
    return "" not in parts and "." not in parts


def parse_note(ref: str, data: bytes, max_bytes: int) -> Note:
    """Parse the bytes of one note into what is indexed (its `<private>` spans never are);
    raise NoteError saying why it cannot be indexed."""
    text = decode_note(data, max_bytes)
    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").split("\n")
    conflict = conflict_start(lines)
    if conflict is not None:
        raise NoteError(
            f"unresolved merge conflict markers at line {conflict + 1} "
            "(resolve the conflict, then commit the note again)",
            line=conflict + 1,
        )
    whole = own_stand_ins("\n".join(lines))  # a `␡` of its own is never shown as a span
    spans = private_ranges(whole)
    fields, body, body_line = split_front_matter(whole, spans)
    at = len(whole) - len(body)
    body = indexed_body(body, [(max(s, at) - at, e - at) for s, e in spans if e > at])
    title = _hidden(fields.title) if fields.title else first_heading(body)
    return Note(
        ref=ref,
        title=title or PurePosixPath(ref).stem,
        tags=_public(clean_words(fields.tags, lower=True)),
        aliases=_public(clean_words(fields.aliases, lower=False)),
        body=body,
        body_line=body_line,
        created=_public_or_none(fields.created),
        lang=_public_or_none(fields.lang),
        content_hash=content_hash(text),  # the file's SHA-256: the text is as decoded
        cut=fields.cut,
    )


# What is indexed of a note never holds its `<private>` spans (memidx.private finds them, as
# output does, in the whole note: one opened in the front matter runs on into the body). Each
# becomes PRIVATE_STAND_IN, which no search reads as a word, and the line breaks it held, so
# lines, headings and chunks after it stay where they are in the file, which is never changed
# (memidx.notes.private_body). A value YAML reads out of a span that runs over several values
# is the stand-in alone (memidx.notes.private_yaml).


def _hidden(text: str) -> str:
    """A title, tag or alias as indexed: each private span in it the stand-in."""
    return without_private(text, mark=PRIVATE_STAND_IN)


def _public(words: tuple[str, ...]) -> tuple[str, ...]:
    """Tags or aliases as indexed: a private span in one replaced, repeats dropped again."""
    return tuple(dict.fromkeys(_hidden(w) for w in words))


def _public_or_none(value: str | None) -> str | None:
    """`created` or `lang` as indexed: none where a span covers any of it (the note is then
    dated by the commit that added it, as one without `created`)."""
    if value is None or PRIVATE_STAND_IN in value or _hidden(value) != value:
        return None
    return value


def decode_note(data: bytes, max_bytes: int) -> str:
    """The text of a note as it is in the file, or NoteError for binary, non-UTF-8, empty or
    oversized files."""
    if len(data) > max_bytes:
        raise NoteError(too_large(len(data), max_bytes))
    if b"\x00" in data[:8000]:
        raise NoteError("binary file (contains NUL bytes), not a Markdown note")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NoteError(
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}; "
            "re-save it as UTF-8)"
        ) from exc
    if not text.removeprefix("\ufeff").strip():
        raise NoteError("empty note (no text to index)")
    return text


def split_front_matter(
    text: str, private: list[tuple[int, int]] | None = None
) -> tuple[Fields, str, int]:
    """Split optional YAML front matter from the body; returns (fields, body, body's first line).
    `private`: the `<private>` spans of `text` (memidx.private), each value YAML reads out of
    one PRIVATE_STAND_IN."""
    if not text.startswith("---"):
        return Fields(), text, 1
    lines = text.split("\n")
    end = front_matter_end(lines)
    if not end:
        if end is None:
            raise NoteError(
                "malformed front matter: no closing '---' line "
                f"(end the front matter with one; {RULE_HINT})"
            )
        return Fields(), text, 1
    try:
        at = len(lines[0]) + 1  # where the block starts in `text`
        block = "\n".join(lines[1 : end - 1])
        inside = [(s - at, e - at) for s, e in private or () if s < at + len(block)]
        fields = read_fields(block, inside)
    except FrontMatterError as exc:
        raise NoteError(str(exc), exc.line) from exc
    body = "\n".join(lines[end:])
    if not body.strip():  # front matter alone: no line after it to point a hit at
        return fields, body, _title_line(lines[1 : end - 1])
    return fields, body, end + 1


def _title_line(keys: list[str]) -> int:
    """The line of the `title:` key among the front matter's lines (from the file's second),
    else the file's first: where a hit of a note without a body points."""
    found = next((n for n, line in enumerate(keys) if _TITLE_KEY.match(line)), None)
    return 1 if found is None else found + 2


def first_heading(body: str) -> str | None:
    """The text of the first level-1 ATX heading outside fenced code that has any (the title of
    a note without `title`; memidx.notes.markdown says what a heading and a fence are)."""
    for _, _, heading in scan(body.split("\n")):
        if heading is not None and heading.level == 1 and heading.text:
            return heading.text
    return None


def clean_word(item: object, *, lower: bool = True) -> str:
    """A tag as memidx stores and filters it: trimmed, without a leading '#', lower case."""
    word = str(item).strip().lstrip("#").strip()
    return word.lower() if lower else word


def clean_words(items: Iterable[object], *, lower: bool = True) -> tuple[str, ...]:
    """Tags (or aliases, lower=False) of a note, a record or a command line: cleaned, without
    empty words or repeats, in their first order. One cleaning, so a filter finds them all."""
    words = dict.fromkeys(clean_word(item, lower=lower) for item in items)  # a set in order
    words.pop("", None)
    return tuple(words)


def too_large(size: int, limit: int) -> str:
    """Why a note over the size limit is skipped."""
    return (
        f"too large ({size:,} bytes, the limit is {limit:,}; "
        "split the note or raise max_note_bytes)"
    )
