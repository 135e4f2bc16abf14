"""A Markdown label and a key's label in prose read as a key's name (pure): `**Password:**
v4lue`, `API key: v4lue` (memidx.secrets.keywords reads the text so)."""

from __future__ import annotations

import re

from memidx.secrets.lazy_pattern import lazy

# A Markdown label in bold or italics, its `:` inside or after it (`**Password:** v4lue`,
# `- **password**: v4lue`, `__Token__:`): a note's way of writing one, let through whatever the
# value, as no name was given it. Tried at a marker after a line's start, a space, `-` or `|`
# (the look-ahead first: the engine then skips to each `*` or `_`, half the time of trying
# the look-behind at every character)
LABEL = lazy(r"(?=[*_])(?<![^\s|>-])(\*\*|__|\*|_)([A-Za-z][\w .-]{0,40}?)(:?+)\1(?![\w*])(:?+)")


def plain_labels(text: str) -> str:
    """`text` with each LABEL written as its words and `:`, then spaces, and a key's kind and
    `key` before a `:` in prose as one name (SPOKEN_KEY): the same length, a value after it
    where it was."""
    if "*" in text or "_" in text:
        text = LABEL.sub(_plain_label, text)
    return SPOKEN_KEY.sub(_joined_key, text) if " key" in text or " Key" in text else text


# A key's kind and `key` in words (`**API key:** v4lue`): a label's name, as `api_key` is a
# name; `key` alone names no secret (`key: value`), and the label's value was let through
LABELED_KEY = lazy(r"(?i)(?:api|secret|private|access|client|signing|encryption) key")


# The same in prose, before its `:` (`API key: v4lue`, `The secret key: v4lue`): the value of a
# sentence's label was let through, where `api_key: v4lue` was refused. A sentence's label is
# followed by words as often (`API key: read-only scope`, `secret key: 40-character base64`,
# `Client key: client-key.pem`: each was refused so), so only a random value (group 1) makes
# it a name, as `auth` is given a method's words (assignments.auth_method). So with `is` for
# its `:` (group 2: `The API key is v4lue` was let through; `The API key is read-only` passes)
# (The look-ahead for a kind's first letter first: the engine then skips to those.)
SPOKEN_KEY = lazy(
    rf"(?=[aspce])(?<![\w-])(?:{LABELED_KEY.pattern.removeprefix('(?i)')})"
    r"(?:(?=:\s*+(\S*+))|[ \t]is(?=[ \t]++(\S*+)))",
    re.I,
)
LETTERS = lazy(r"[A-Za-z]++")


def _joined_key(key: re.Match[str]) -> str:
    from memidx.secrets.assignments import random_run  # a spoken key's value only
    from memidx.secrets.members import random_letters

    said = key[1] is None  # `API key is v4lue`: written `API_key:   v4lue`, the same length
    value = (key[2] if said else key[1]).strip("\"'`.,;:()[]<>*")
    if random_run(value) or any(random_letters(part[0]) for part in LETTERS.finditer(value)):
        return key[0][:-3].replace(" ", "_") + ":  " if said else key[0].replace(" ", "_")
    return key[0]


def _plain_label(label: re.Match[str]) -> str:
    if not (label[3] or label[4]) or (label[3] and label[4]):
        return label[0]
    words = label[2].replace(" ", "_") if LABELED_KEY.fullmatch(label[2]) else label[2]
    return (words + ":").ljust(len(label[0]))
