"""Lines that are one name given one plain value, each read by one pass alone, not by every
pass of memidx.secrets.keywords (pure)."""

from __future__ import annotations

from collections.abc import Callable

from memidx.secrets.lazy_pattern import lazy

# A line that is one name given a plain value of 1 to 7 characters (`password=1`, `pw: ab12`):
# only short_passwords finds a secret there, every other value is judged from 8 characters on
# (values.looks_secret) and needs a sign this line has not (a quote, a bracket, `|`, `%`, `<`,
# `{`, a space in its value), as do a key alone's, a flow collection's and a tripled string's
# (memidx.secrets.blocks). 1 MB of `password=1` lines, each read by every pass, cost 1.8 s;
# a YAML list's items too (`- password: 1`: 5 times the prose, read by every pass)
SHORT_ASSIGNMENT = lazy(
    r"[ \t]*+(?:-[ \t]++)*+[\w.-]++[ \t]*+(?::=|=>|[:=])[ \t]*+[A-Za-z0-9_][A-Za-z0-9_.-]{0,6}+"
    r"[ \t]*+\r?"
)


def short_line(line: str, read: dict[str, list[tuple[int, int]]]) -> list[tuple[int, int]]:
    """short_passwords of a SHORT_ASSIGNMENT line, each line's text read once (`read`)."""
    from memidx.secrets.short import short_passwords  # only a line that needs it imports it

    found = read.get(line)
    if found is None:
        found = list(short_passwords(line))
        if len(read) < 4096:  # a file of distinct lines is read each once, and not kept
            read[line] = found
    return found


# A line that is one name ending in a password's, a secret's, a token's or an API key's word
# given one plain value of 8 to 64 letters and digits by `=` or `:` (`password=word1xyz`,
# `DB_SECRET: Zq8vT2mW9pLq`): every pass finds that value or nothing, as looks_secret judges
# it, and a person's short password (short_passwords: `password: 12345678`); no sign, quote,
# bracket or space is there for another pass to read, and no `auth`, `pass`, `pw` or `pwd`,
# whose values a method's, a test's or a folder's name may be (`=>` and `:=` need quotes).
# 1 MB of such lines, all different, each read by every pass, cost 11 times the TIL notes
PLAIN_ASSIGNMENT = lazy(
    r"[ \t]*+(?:-[ \t]++)?+(?:[A-Za-z0-9]+_)*(?i:password|passwd|secret|token|api_?key)"
    r"[ \t]*+[:=][ \t]*+([A-Za-z0-9]{8,64}+)[ \t]*+\r?"
)


def plain_line(line: str, judge: Callable[[str], bool]) -> list[tuple[int, int]]:
    """(start, end) of the secrets of a PLAIN_ASSIGNMENT line: its short password, and its
    value wherever it stands (places.every_place) when `judge` finds it secret."""
    from memidx.secrets.places import every_place
    from memidx.secrets.short import short_passwords

    match = PLAIN_ASSIGNMENT.fullmatch(line)
    if match is None:
        return []
    found = list(short_passwords(line))
    places = every_place(line, [(match[1], "")] if judge(match[1]) else [])
    return [*found, *((at, end) for at, end, _ in places)]
