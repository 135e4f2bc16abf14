"""Parse a Markdown note: front matter, title, tags, body (pure: bytes in, values out)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, date, datetime
from functools import cache
from pathlib import PurePosixPath

from memidx.frozen import Value
from memidx.hashes import content_hash
from memidx.notes.frontmatter import read_simple
from memidx.notes.markdown import front_matter_end, scan

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~2 ms
if TYPE_CHECKING:
    from typing import Any

# yaml is imported only for front matter beyond the simple shape (memidx.notes.frontmatter), not
# when memidx.notes.note is: the search path imports this module and must not pay ~19 ms for it.


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


class NoteError(ValueError):
    """A file under notes/ that cannot be indexed; the message says why."""


_FIELDS = {"title", "tags", "aliases", "created", "lang"}


def is_note_path(ref: str, notes_dir: str) -> bool:
    """True for `*.md` files under the notes folder, skipping dotfiles and dot-folders."""
    path = PurePosixPath(ref)
    if path.suffix != ".md" or not path.is_relative_to(notes_dir):
        return False
    return not any(part.startswith(".") for part in path.relative_to(notes_dir).parts)


def parse_note(ref: str, data: bytes, max_bytes: int) -> Note:
    """Parse the bytes of one note; raise NoteError saying why it cannot be indexed."""
    text = decode_note(data, max_bytes)
    meta, body, body_line = split_front_matter(text.removeprefix("\ufeff").replace("\r\n", "\n"))
    title = _scalar(meta.get("title")) or first_heading(body) or PurePosixPath(ref).stem
    return Note(
        ref=ref,
        title=title,
        tags=_word_list(meta.get("tags"), "tags", lower=True),
        aliases=_word_list(meta.get("aliases"), "aliases", lower=False),
        body=body,
        body_line=body_line,
        created=_scalar(meta.get("created")),
        lang=_scalar(meta.get("lang")),
        content_hash=content_hash(text),  # the file's SHA-256: the text is as decoded
    )


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


def split_front_matter(text: str) -> tuple[dict[str, object], str, int]:
    """Split optional YAML front matter from the body; returns (fields, body, body's first line)."""
    if not text.startswith("---"):
        return {}, text, 1
    lines = text.split("\n")
    end = front_matter_end(lines)
    if not end:
        if end is None:
            raise NoteError("malformed front matter: no closing '---' line")
        return {}, text, 1
    block = "\n".join(lines[1 : end - 1])
    meta = read_simple(block)
    if meta is None:
        meta = _read_yaml(block)
    for key in _FIELDS & set(meta):
        if isinstance(meta[key], dict):
            raise NoteError(f"malformed front matter: '{key}' must be text or a list")
    return meta, "\n".join(lines[end:]), end + 1


def _read_yaml(block: str) -> dict[str, object]:
    """Front matter beyond the simple shape, read by PyYAML (imported here: ~19 ms)."""
    yaml, loader = _yaml()
    try:
        loaded: object = yaml.load(block, Loader=loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise NoteError(f"malformed front matter: {problem}{where}") from exc
    except ValueError as exc:  # well-formed YAML, impossible value: `date: 2026-13-45`
        raise NoteError(f"malformed front matter: {exc}") from exc
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise NoteError("malformed front matter: expected 'key: value' lines")
    from typing import cast

    return {str(k): v for k, v in cast(dict[object, object], loaded).items()}


BOOL_TAG = "tag:yaml.org,2002:bool"


@cache
def _yaml() -> tuple[Any, Any]:
    """PyYAML and its fastest safe loader (libyaml's parser when PyYAML was built with it),
    with YAML 1.2's booleans: only true and false. YAML 1.1 also reads yes, no, on and off
    as booleans, so `lang: no` (Norwegian) and `tags: [on]` would lose their words."""
    import yaml

    base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Loader(base):  # pyright: ignore[reportUntypedBaseClass]
        pass

    Loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != BOOL_TAG]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }
    Loader.add_implicit_resolver(  # pyright: ignore[reportUnknownMemberType]
        BOOL_TAG, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
    )
    return yaml, Loader


def front_matter_loader() -> object:
    """The YAML loader front matter is read with (for tests that compare readers)."""
    return _yaml()[1]


def first_heading(body: str) -> str | None:
    """The text of the first level-1 ATX heading outside fenced code that has any (the title of
    a note without `title`; memidx.notes.markdown says what a heading and a fence are)."""
    for _, _, heading in scan(body.split("\n")):
        if heading is not None and heading.level == 1 and heading.text:
            return heading.text
    return None


def _scalar(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):  # comparable with records' timestamps: UTC, "Z"
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
        return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        raise NoteError("malformed front matter: expected text, found a list")
    text = str(value).strip()
    return text or None


def _word_list(value: object, key: str, *, lower: bool) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        items: list[object] = list(value.split(","))
    elif isinstance(value, list):
        items = list(value)  # pyright: ignore[reportUnknownArgumentType]
    else:
        items = [value]
    if any(isinstance(item, dict | list) for item in items):
        raise NoteError(f"malformed front matter: '{key}' must be a list of words")
    return clean_words(items, lower=lower)


def clean_word(item: object, *, lower: bool = True) -> str:
    """A tag as memidx stores and filters it: trimmed, without a leading '#', lower case."""
    word = str(item).strip().lstrip("#").strip()
    return word.lower() if lower else word


def clean_words(items: Iterable[object], *, lower: bool = True) -> tuple[str, ...]:
    """Tags (or aliases, lower=False) of a note, a record or a command line: cleaned, without
    empty words or repeats, in their first order. One cleaning, so a filter finds them all."""
    words: list[str] = []
    for item in items:
        word = clean_word(item, lower=lower)
        if word and word not in words:
            words.append(word)
    return tuple(words)


def too_large(size: int, limit: int) -> str:
    """Why a note over the size limit is skipped."""
    return (
        f"too large ({size:,} bytes, the limit is {limit:,}; "
        "split the note or raise max_note_bytes)"
    )
