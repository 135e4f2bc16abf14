"""Lines that are one name given one plain value, each read by one pass alone, not by every
pass of memidx.secrets.keywords (pure)."""

from __future__ import annotations

from memidx.secrets.lazy_pattern import lazy
from memidx.secrets.short import short_passwords

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
    found = read.get(line)
    if found is None:
        found = list(short_passwords(line))
        if len(read) < 4096:  # a file of distinct lines is read each once, and not kept
            read[line] = found
    return found
