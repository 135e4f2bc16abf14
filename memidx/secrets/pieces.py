"""Where a value without spaces ends: at a secret-sounding name given a value after a `,`, `;`
or `&` (`password=x,secret=...`, a query string's `&token=`, a connection string's
`;Password=`), so each value is reported on its own. Cut there, pieces too short to be secrets
(`password=k9Fz2,api_key=Q`) were shown where the whole value, read as one before the cut, was
masked: so where a piece does not count as a secret on its own, the whole value is read too,
and flagged if it would be. Each separator is read once, each piece judged once: linear.
"""

from __future__ import annotations

import bisect
import re

from memidx.secrets.linear import Split
from memidx.secrets.windows import secret_word

# A name after a separator: its run of name characters and its assignment, read once from each.
NEXT_NAME = re.compile(r"[,;&]([\w.-]++)[\"']?+\s*+(?::=|=>|[:=])")
QUOTES = "\"'`"
SPACE = re.compile(r"\s")


NO_SPLIT = Split((), False)


def split_value(line: str, start: int, end: int) -> Split:
    """How `line[start:end]`, a value without spaces, splits at secret-sounding names given a
    value in it; no cut where the value starts after a quote: a quoted value is one
    (`password="x,token=y"`)."""
    if start and line[start - 1] in QUOTES:
        return NO_SPLIT
    names: list[re.Match[str]] = []
    for name in NEXT_NAME.finditer(line, start, end):
        if secret_word(name.group(1)):
            names.append(name)
            if line[name.end() : name.end() + 1] in tuple(QUOTES):  # the rest is its value
                break
    if not names:
        return NO_SPLIT
    ends = [*(m.start() for m in names[1:]), end]
    pieces = [
        line[start : names[0].start()],
        *(line[m.end() : e] for m, e in zip(names, ends, strict=True)),
    ]
    return Split(tuple(m.start() for m in names), not all(map(_counts, pieces)))


def _counts(piece: str) -> bool:
    from memidx.secrets import library
    from memidx.secrets.patterns import looks_secret

    return looks_secret(piece, library.entropy())


class RunCuts:
    """Where values end in the runs without spaces of a long line (memidx.secrets.detect): its
    windows cut one run again and again, and looking for its end each time made them
    quadratic; each run is found and split once, from the first value cut in it."""

    def __init__(self) -> None:
        self.begin, self.end, self.split = 0, -1, NO_SPLIT
        self.value = (0, 0)  # (from, to) of the last value found

    def value_end(self, line: str, begin: int) -> int:
        """Where the value at `begin` ends: at its run's end, or at a secret-sounding name's
        separator (`,secret=`) when every piece of the run is a secret on its own."""
        if self.value[0] <= begin < self.value[1]:
            return self.value[1]
        if not self.begin <= begin < self.end:
            space = SPACE.search(line, begin)
            end = space.start() if space else len(line)
            self.begin, self.end, self.split = begin, end, split_value(line, begin, end)
        cuts = self.split.cuts
        at = bisect.bisect_right(cuts, begin)
        self.value = (begin, self.end if self.split.whole or at == len(cuts) else cuts[at])
        return self.value[1]
