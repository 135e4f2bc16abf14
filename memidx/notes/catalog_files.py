"""Message catalogs pasted into a note as their files are written, outside a code block: JSON
(`"settings.title": "Einstellungen",`, nested or flat), YAML (`settings:` then `  title:
Einstellungen`) and gettext PO (`msgid "Save"`, `msgstr "Speichern"`). Read line by line as
prose, their strings ran together into one paragraph that voted as their language, so an
English note quoting a German catalog was refused. Each is read as the lists of pairs it is
(memidx.notes.glossary, memidx.notes.catalog): an entry under a message key as `key: string`,
so a catalog is read by its keys and prose cut behind keys still votes; an entry whose source
is text (a PO msgid, a JSON key that is a sentence) as two paragraphs, the sources and the
strings, each weighing its letters, as a phrase list is (memidx.notes.phrasebook). Pure."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence

from memidx.notes.function_words import ENGLISH_FUNCTION_WORDS

# a message key (`settings.title`); its first letter in lower case: `Step 1.2` is no key
MESSAGE_KEY = re.compile(r"[a-z][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)+")
MIN_ENTRIES = 2  # one `key: value` line is a sentence with a colon as likely as a file
MAX_BLOCK_LINES = 4096  # a JSON object is parsed whole: no longer than this, it stays prose
_JSON_OPEN = re.compile(r"\s*\{\s*(?:\"|$)")
# a YAML mapping's line: a key (bare, or quoted), a colon, a value or nothing (a parent)
_YAML = re.compile(
    r"""(?P<indent> *)(?P<key>[A-Za-z0-9_.-]+|"[^"\n]+"|'[^'\n]+'):(?:\s+(?P<value>\S.*))?\s*"""
)
_PO = re.compile(r'(?P<word>msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)\s+"(?P<text>.*)"\s*')
_PO_MORE = re.compile(r'\s*"(?P<text>.*)"\s*')  # a string continued on the next line
_PO_COMMENT = re.compile(r"#[:.,|~]")  # `#:` references, `#.` notes, `#,` flags: not headings
_QUOTED = re.compile(r"""^(["'])(.*)\1$""")
# memidx.notes.loanwords.LETTER_WORD and memidx.notes.slots.MIN_SHARED_LABELS (both import
# memidx.notes.prose, which imports this module)
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")
_MIN_SHARED = 3


def catalog_lines(lines: Sequence[str]) -> dict[int, list[str]]:
    """The lines of each catalog in `lines`, by index, with the units each gives (all of a
    catalog's on its first line, none on the others), read as memidx.notes.prose reads a
    table's: a JSON object, a YAML mapping of MIN_ENTRIES strings or more whose keys, joined
    along its nesting, are message keys, and gettext PO entries."""
    found: dict[int, list[str]] = {}
    at = 0
    while at < len(lines):
        end, units = _json(lines, at)
        if end == at:
            end, units = _yaml(lines, at)
        if end == at:
            end, units = _po(lines, at)
        if units is not None:
            found.update({line: [] for line in range(at, end)})
            found[at] = units
        at = max(end, at + 1)  # a run that is no catalog is not tried again inside: linear
    return found


Read = tuple[int, list[str] | None]  # where a run read from a line ends; its units, if a catalog


def _json(lines: Sequence[str], at: int) -> Read:
    """A JSON object opening at line `at`: its end, and its units when it parses and holds
    MIN_ENTRIES strings or more."""
    if not _JSON_OPEN.match(lines[at]):
        return at, None
    depth, end = 0, at
    for end in range(at, min(len(lines), at + MAX_BLOCK_LINES)):
        depth += _braces(lines[end])
        if depth <= 0:
            break
    try:  # nested past Python's recursion limit (`{"a":` a thousand times), no catalog either
        entries = _leaves(json.loads("\n".join(lines[at : end + 1])), "")
    except (ValueError, RecursionError):
        return end + 1, None
    return end + 1, _units(entries) if len(entries) >= MIN_ENTRIES else None


def _braces(line: str) -> int:
    """How many more `{` than `}` a line of JSON holds outside its strings."""
    outside = re.sub(r'"(?:[^"\\]|\\.)*"', "", line)
    return outside.count("{") - outside.count("}")


def _leaves(data: object, path: str) -> list[tuple[str, str]]:
    """The strings of a parsed JSON object, each with its keys joined by dots."""
    if isinstance(data, str):
        return [(path, data)] if path else []
    if not isinstance(data, dict):
        return []
    found: list[tuple[str, str]] = []
    for key, value in data.items():  # pyright: ignore[reportUnknownVariableType]
        found += _leaves(value, f"{path}.{key}" if path else str(key))  # pyright: ignore[reportUnknownArgumentType]
    return found


def _yaml(lines: Sequence[str], at: int) -> Read:
    """A YAML mapping from line `at`, at the margin, to the first line that is not one of its
    own: its end and units, when its keys joined along its nesting are all message keys."""
    if (first := _YAML.fullmatch(lines[at])) is None or first["indent"]:
        return at, None
    parents: list[tuple[int, str]] = []
    entries: list[tuple[str, str]] = []
    end = at
    while end < len(lines) and (line := _YAML.fullmatch(lines[end])) is not None:
        indent, key = len(line["indent"]), _unquoted(line["key"])
        while parents and parents[-1][0] >= indent:
            parents.pop()
        if end > at and not indent and not parents and line["value"] is None and entries:
            break  # a second mapping at the margin: its own
        path = ".".join([*(name for _, name in parents), key])
        if line["value"] is None:
            parents.append((indent, key))
        else:
            entries.append((path, _unquoted(line["value"].strip())))
        end += 1
    if len(entries) < MIN_ENTRIES or not all(MESSAGE_KEY.fullmatch(key) for key, _ in entries):
        return end, None
    return end, _units(entries)


def _po(lines: Sequence[str], at: int) -> Read:
    """gettext PO entries from line `at` (comments, msgctxt, msgid, msgstr, strings continued
    on the next lines, blank lines between entries): their end and units."""
    entries: list[tuple[str, str]] = []
    source: str | None = None
    end, word = at, ""
    while end < len(lines):
        line = lines[end]
        if (entry := _PO.fullmatch(line)) is not None:
            word = entry["word"]
            if word == "msgid":
                source = entry["text"]
            elif word.startswith("msgstr") and source is not None:
                entries.append((source, entry["text"]))
        elif (more := _PO_MORE.fullmatch(line)) is not None and word:
            if word == "msgid" and source is not None:
                source += more["text"]
            elif word.startswith("msgstr") and entries:
                entries[-1] = (entries[-1][0], entries[-1][1] + more["text"])
        elif not (_PO_COMMENT.match(line) or (not line.strip() and word)):
            break
        end += 1
    while end > at and not lines[end - 1].strip():
        end -= 1  # the blank lines after the last entry end paragraphs as they did
    entries = [(source, text) for source, text in entries if source and text]  # the header
    return end, _units(entries) if len(entries) >= MIN_ENTRIES else None


def _units(entries: Sequence[tuple[str, str]]) -> list[str]:
    """Entries under message keys as `key: string` items; others, their sources and their
    strings as two paragraphs."""
    if all(MESSAGE_KEY.fullmatch(key) for key, _ in entries) or not _phrases(entries):
        return [f"{key}: {text}" for key, text in entries]
    return ["\n".join(key for key, _ in entries), "\n".join(text for _, text in entries)]


def _phrases(entries: Sequence[tuple[str, str]]) -> bool:
    """Whether the sources share no word but English function words, nor the whole source, in
    more than half of them, as a phrase list's phrases (memidx.notes.phrasebook): one msgid
    before each string (`msgid "Save changes"`, or `msgid "it is the"`) is a slot, not a
    catalog, and let 63 of 103 foreign notes cut in pieces of two words pass (3 as a list).
    A msgid repeated under another msgctxt (`Open` of a menu and of a dialog) is gettext's."""
    words = Counter(
        word
        for source, _ in entries
        for word in {*_WORD.findall(source.lower())} - ENGLISH_FUNCTION_WORDS | {source.lower()}
    )
    top = max(words.values(), default=0)
    return top < _MIN_SHARED or top * 2 <= len(entries)


def _unquoted(text: str) -> str:
    return quoted[2] if (quoted := _QUOTED.match(text)) is not None else text
