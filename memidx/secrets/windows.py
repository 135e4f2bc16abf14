"""Windows of a long line for the library's keyword detector (pure).

detect-secrets' keyword expressions scan from each secret-sounding name to the end of its line
and back (the value `(?=[^\\v'"]*)...[^\\v'"]*[^\\v,'"`]`), and report the first match of each
expression: a long line dense with such names cost time quadratic in its length (18 s for 40 KB
of `` `PASSWORD:`` repeated, 8 s for `-db_pass`), in C, where no hook's deadline can stop it. A
line longer than LONG_LINE is read as windows instead, each from BEFORE characters before a name
(`'value' == password` puts the value first) to REACH characters after its start, one window for
each name the window before does not hold with half its reach: the work is linear in the line,
and each window reports its own first assignments, where the whole line reported only one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache

from memidx.secrets import library

# Characters a name runs on (`db.password`, `PASSWORD"]`): a name ends where they do.
NAME_RUN = r"[\w\"'\]\[.-]"
# A run of them followed by an assignment (`=`, `:`, `:=`, `=>`, a call). Tried only where a
# run begins (the look-behind) and never backing into it: `secretsecret...` tried at each word
# in the run, each try reading to its end, cost time quadratic in the run (6 s for 40 KB).
ASSIGNED_RUN = re.compile(rf"(?<!{NAME_RUN}){NAME_RUN}++\s*+(?:=|:|\()")
SPOKEN = re.compile(r"(?i)bearer\s|basic\s")


@cache
def _secret_words() -> re.Pattern[str]:
    extra = ["token", "credential", "access[_-]?key", "bearer", r"[_-]pass\b"]  # SMTP_PASS
    return re.compile("(?i)(?:" + "|".join([*library.keyword_words(), *extra]) + ")")


def secret_names(line: str) -> list[tuple[int, int]]:
    """(start, end) of each secret-sounding name given a value in `line` (a secret-sounding
    word in a run of name characters followed by an assignment), and of each `bearer `/`basic `,
    in order."""
    words = _secret_words()
    found = [m.span() for m in SPOKEN.finditer(line)]
    for match in ASSIGNED_RUN.finditer(line):
        word = words.search(line, match.start(), match.end())
        if word:
            found.append((word.start(), match.end()))
    return sorted(found)


LONG_LINE = 256
BEFORE = 32
REACH = 256


def windows(line: str, names: Iterable[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """(start, end) of each window of `line` to read, given the (start, end) of its names in
    order: the whole line when it is short."""
    if len(line) <= LONG_LINE:
        yield 0, len(line)
        return
    end = -1
    for start, stop in names:
        if stop + REACH // 2 <= end:  # the window before holds this name and its value
            continue
        end = min(len(line), start + REACH)
        yield max(0, start - BEFORE), end


def cut_short(window: str, token: str, end: int, line: str) -> bool:
    """Whether the window's end cut `token` (a value it found) short: no space between the
    token's last place in the window and the window's end, and the line goes on."""
    if end >= len(line) or line[end].isspace():
        return False
    at = window.rfind(token)
    return at != -1 and not any(c.isspace() for c in window[at + len(token) :])
