"""An agent's JSON configuration as text and back: read strictly (a text memidx could not write
back as it read it is refused, naming the file), written in the file's own indentation and line
ending. Pure: text in, values out."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import cast

from memidx.errors import MemidxError

Json = dict[str, object]
LEFT_ALONE = "fix it: memidx left the file alone"
TOO_DEEP = "nested too deeply for memidx to read"  # Python's parsers recurse: RecursionError
BOM = "\ufeff"  # the byte-order mark Windows editors (Notepad) put first in a UTF-8 file


def parse_json(text: str, path: Path, *, bom: bool = False, comments: bool = False) -> Json:
    """The JSON object in `text`, the content of `path` ({} when it is empty). A byte-order
    mark first is read past when the agent reads it too (`bom`: Claude Code does), else
    named: Gemini CLI and Codex read no such file (memidx said `Unexpected UTF-8 BOM (decode
    using utf-8-sig)`, Python's advice). With `comments`, a file memidx only reads is read
    past its // and /* */ comments, as Gemini CLI reads its own."""
    if text.startswith(BOM) and not bom:
        raise MemidxError(
            f"{path}: starts with a byte-order mark (U+FEFF), which the agent cannot read",
            "save it as UTF-8 without one: memidx left every file alone",
        )
    text = text.removeprefix(BOM)
    if not text.strip():
        return {}
    try:
        loaded: object = _loads(text)
    except RecursionError as exc:
        raise MemidxError(f"{path}: {TOO_DEEP}", LEFT_ALONE) from exc
    except _Duplicate as exc:
        raise _held_twice(path, text, exc) from exc
    except ValueError as exc:
        bare = COMMENT.sub(_blank, text)  # Gemini CLI, for one, reads it
        try:
            loaded = _loads(bare)
        except _Duplicate as twice:  # was `not valid JSON` at the first comment's place
            raise _held_twice(path, bare, twice) from exc
        except RecursionError:
            raise MemidxError(f"{path}: not valid JSON: {exc}", LEFT_ALONE) from exc
        except ValueError as past:  # its place, not the first comment's (`line 2 column 3`)
            raise MemidxError(f"{path}: not valid JSON: {past}", LEFT_ALONE) from exc
        if not comments:
            raise MemidxError(
                f"{path}: holds comments, which memidx cannot keep when it edits the file",
                "take them out, or add memidx's entries by hand: memidx left the file alone",
            ) from exc
    if not isinstance(loaded, dict):
        raise MemidxError(f"{path}: does not hold a JSON object", LEFT_ALONE)
    return cast(Json, loaded)


SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # where a lone surrogate may be


def refuse_half_characters(doc: Json, text: str, path: Path) -> None:
    """Raise when `doc`, read from `text`, holds a lone surrogate (`"\\ud800"`, valid JSON):
    dump_json writes it as it is, and the write refused the file as one whose memidx entries
    name a path that is not UTF-8, telling the person to move memidx's clone."""
    if not SURROGATE_ESCAPE.search(text):
        return
    try:
        json.dumps(doc, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise MemidxError(
            f"{path}: holds a \\u escape of half a character (a lone surrogate, \\ud800 say),"
            " which memidx cannot write back",
            LEFT_ALONE,
        ) from exc


class _Duplicate(ValueError):
    """An object holds a key twice: Python's json keeps the last value, and writing the
    document back would drop the first (the person's hooks, say) without a word."""

    def __init__(self, key: str) -> None:
        super().__init__(f"the key {key!r} is there twice")
        self.key = key


def _unique(pairs: list[tuple[str, object]]) -> Json:
    found = dict(pairs)
    if len(found) != len(pairs):
        keys = [key for key, _ in pairs]
        raise _Duplicate(next(key for at, key in enumerate(keys) if key in keys[:at]))
    return found


def _loads(text: str) -> object:
    return json.loads(
        text, object_pairs_hook=_unique, parse_float=_finite, parse_constant=_no_constant
    )


class _Pairs(list[tuple[str, object]]):
    """An object as read, its keys in order and repeated: where a key is twice."""


def _twice(text: str) -> str | None:
    """The first key held twice and the path to it (`"hooks"."Stop"[0]."command"`)."""
    try:
        return _find_twice(json.loads(text, object_pairs_hook=_Pairs), "")
    except (ValueError, RecursionError):
        return None


def _find_twice(value: object, where: str) -> str | None:
    if isinstance(value, _Pairs):
        seen: set[str] = set()
        for key, _ in value:
            if key in seen:
                return f"{where}{json.dumps(key)}"
            seen.add(key)
        for key, inner in value:
            found = _find_twice(inner, f"{where}{json.dumps(key)}.")
            if found is not None:
                return found
    elif isinstance(value, list):
        for at, inner in enumerate(cast(list[object], value)):
            found = _find_twice(inner, f"{where.removesuffix('.')}[{at}].")
            if found is not None:
                return found
    return None


def _finite(number: str) -> float:
    """A JSON number as Python reads it, unless too large for a float: `1e400` read as inf was
    written back `Infinity`, which no JSON reader (the agents' included) takes."""
    value = float(number)
    if math.isinf(value):
        raise ValueError(f"the number {number} is too large for memidx to write back")
    return value


def _no_constant(name: str) -> object:
    """NaN and Infinity, which Python reads and the agents' JSON readers do not."""
    raise ValueError(f"{name} is no JSON value")


COMMENT = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', re.DOTALL)


def _blank(found: re.Match[str]) -> str:
    """A string as it is, a comment as spaces (its line breaks kept): JSON's places hold."""
    return found.group(1) or re.sub(r"[^\n]", " ", found.group(0))


def _held_twice(path: Path, text: str, exc: _Duplicate) -> MemidxError:
    where = _twice(text) or json.dumps(exc.key)
    return MemidxError(
        f"{path}: has the key {where} twice, of which JSON readers keep only the last",
        "merge the two into one, then run the command again: memidx left every file alone",
    )


def dump_json(doc: Json, like: str = "") -> str:
    """`doc` as the text of a settings file, indented as the file's text `like` is, and
    starting with a byte-order mark when it does."""
    indent = re.search(r"^([ \t]+)\S", like, re.MULTILINE)
    text = json.dumps(doc, indent=indent.group(1) if indent else 2, ensure_ascii=False)
    text = (BOM if like.startswith(BOM) else "") + text
    text += "\n" if like.endswith("\n") or not like else ""
    return text.replace("\n", "\r\n") if "\r\n" in like else text
