"""A line's percent-encoded pairs read as plain ones (pure): a query string inside a URL's
parameter, or a form body in a log, writes `password=v4lue` as `password%3Dv4lue`, and its
next pair's `&` as `%26`; no name was given a value there, and the password was let through."""

from __future__ import annotations

from collections.abc import Iterator

from memidx.secrets.lazy_pattern import lazy

# an encoded `=` or `:` after a name's character, or encoded twice (`%253D`, a URL inside a
# URL's parameter inside another's): what makes a pair worth decoding
ENCODED_PAIR = lazy(r"[\w\"]%(?:25)?+3[AaDd]|%(?:25)?+22%(?:25)?+3[Aa]")
# an ASCII character percent-encoded, or a form's `+` for a space (`password%3A+how+to+reset`
# is a search for prose)
ESCAPE = lazy(r"%([0-7][0-9A-Fa-f])|\+")


def has_encoded_pairs(line: str) -> bool:
    """Whether `line` holds a percent-encoded `=` or `:` after a name."""
    return "%" in line and ENCODED_PAIR.search(line) is not None  # a literal find first


def decodings(line: str) -> Iterator[tuple[str, list[int]]]:
    """`line` decoded once and, where its pairs were encoded twice, twice (`password%253Dv4lue`
    was let through): each with the place in `line` of each character (see url_decoded)."""
    if not has_encoded_pairs(line):
        return
    plain, places = url_decoded(line)
    yield plain, places
    if "%3" in plain and has_encoded_pairs(plain):
        twice, inner = url_decoded(plain)
        yield twice, [places[at] for at in inner]


def url_decoded(line: str) -> tuple[str, list[int]]:
    """`line` with its ASCII escapes decoded (`%3D` as `=`, `%26` as `&`, `+` as a space),
    and for each of its characters and its end, where it stands in `line`: a place in the
    decoded line maps back as `places[at]`, an end as `places[end]`."""
    out: list[str] = []
    places: list[int] = []
    at = 0
    for match in ESCAPE.finditer(line):
        out.append(line[at : match.start()])
        places.extend(range(at, match.start()))
        char = chr(int(match.group(1), 16)) if match.group(1) else " "
        out.append(char if char.isprintable() else match.group())
        places.extend([match.start()] if char.isprintable() else range(match.start(), match.end()))
        at = match.end()
    out.append(line[at:])
    places.extend(range(at, len(line) + 1))
    return "".join(out), places
