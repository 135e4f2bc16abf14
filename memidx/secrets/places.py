"""Every place each of many values stands in a line, in one reading of it (pure).

A long line dense with assignments (a pasted log, a dump of `password="..."` pairs) gives the
keyword pass thousands of secret values, each masked wherever it stands in its line: one
str.find over the line for each, 18,000 values in a 900 KB line, cost 14 s. Past FEW values the
line is read once instead, at each place looking up what starts there by the value's first KEY
characters and then by its length, so the work is the line's length times the few lengths the
values sharing a start have, not times their number.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

FEW = 64  # up to this many values, one str.find each is cheaper than reading the line in Python
KEY = 8  # every value judged a secret has 8 characters or more (values.looks_secret)


def every_place(line: str, values: Iterable[tuple[str, str]]) -> Iterator[tuple[int, int, str]]:
    """(start, end, kind) of every place each (value, kind) stands in `line`, the places of
    one value not overlapping each other, read from the left (as str.find from each end)."""
    wanted = list(dict.fromkeys(pair for pair in values if pair[0]))
    few = [pair for pair in wanted if len(pair[0]) < KEY] if len(wanted) > FEW else wanted
    for value, kind in few:
        at = line.find(value)
        while at != -1:
            yield at, at + len(value), kind
            at = line.find(value, at + len(value))
    if few is not wanted:
        yield from _read_once(line, [pair for pair in wanted if len(pair[0]) >= KEY])


def _read_once(line: str, wanted: list[tuple[str, str]]) -> Iterator[tuple[int, int, str]]:
    by_key: dict[str, dict[int, dict[str, list[str]]]] = {}
    for value, kind in wanted:
        by_key.setdefault(value[:KEY], {}).setdefault(len(value), {}).setdefault(value, [])
        by_key[value[:KEY]][len(value)][value].append(kind)
    free: dict[tuple[str, str], int] = {}  # where each value's next place may start
    for at in range(len(line) - KEY + 1):
        lengths = by_key.get(line[at : at + KEY])
        if lengths is None:
            continue
        for length, kinds in lengths.items():
            value = line[at : at + length]
            for kind in kinds.get(value, ()):
                if free.get((value, kind), 0) <= at:
                    free[value, kind] = at + length
                    yield at, at + length, kind
