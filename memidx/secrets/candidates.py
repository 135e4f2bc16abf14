"""The names of a line worth reading for memidx's own assignments (pure).

assignments.extra_keyword_values read every name given a value, one Python step each, to ask
whether it holds a secret-sounding word or follows one's query pair: a line dense with names
(`a=1 ` or `x=y&` to 1 MB, 262,144 names) cost 0.5 to 1.4 s of CPU, nearly all for names
that give nothing. Only two kinds can give a value there, each found from the stems of the
secret-sounding words (str.find in C: a line holds few):

- a run of name characters holding a stem, then an assignment (the name after its run's last
  dot, which extra_keyword_values reads, is a part of the run);
- a name after an `&` within FOLLOWING characters after a stem (linear.opened_by_name reads
  back at most 200 characters for the name that opened the pairs, and that name holds one).

Each is the match EXTRA_ASSIGNED finds at the same place, so the reading is the same
(tests/unit/test_secret_names_worth_reading.py compares them with every name read).
"""

from __future__ import annotations

import bisect
import re

from memidx.secrets.lazy_pattern import lazy

ASSIGNMENT = r"[\"']?+\s*+(?::=|=>|[:=])"
# A run of name characters, then an assignment (group 1 the run). Tried only where a run
# begins and never backing into it (see assignments.py).
EXTRA_ASSIGNED = lazy(rf"(?<![\w.-])([\w.-]++){ASSIGNMENT}")
RUN = lazy(r"[\w.-]*+")  # a run of name characters (read backwards in the reversed line)
# Stems of every secret-sounding word, each found by str.find in the line in small letters
# (windows.secret_words: each word holds one; keywords.STEMS)
STEMS = ("pass", "pw", "auth", "secret", "key", "token", "credential", "bearer", "contrase")
# `pw` or `pass` first in a name asking for a password again (`pwConfirm`, `pw_confirm`,
# `PW_CONFIRM`, `passConfirm`, `pass_repeat`; not `pwd`, the shell's working directory, nor
# `PWDir`, `pass_through`): each was let through, `\b` wanting a sign after the word
# (assignments.EXTRA_WORDS and windows' secret words read it). Only so: `pw` first in any name
# refused the fields of C's and Python's `struct passwd` (`pw_name = jsmith2024`, `pw_gecos`)
# and Playwright's settings (`PW_TEST_CONNECT_WS_ENDPOINT=ws://...`, `pw_browser`)
LEADING_PW = (
    r"(?<![A-Za-z0-9])(?:pw|pass)[0-9]?+(?=[_-]?+(?i:confirm|repeat|again|retype))"
    r"(?=[_-]|(?-i:(?<=[a-z0-9])[A-Z][a-z]))"
)
ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
# how far after a stem's start an `&` may open a pair its name gave: 200 characters back
# (linear.opened_by_name), and the longest stem's length
FOLLOWING = 200 + 16
# a line with a stem every DENSE characters or more is read name by name (each a candidate)
DENSE = 32


def stem_starts(line: str, stems: tuple[str, ...] = STEMS) -> list[int]:
    """Where each of `stems` (those of a secret-sounding word) begins in `line`, in order,
    ASCII letters of any case."""
    lower = line.translate(ASCII_LOWER)
    found: list[int] = []
    for stem in stems:
        at = lower.find(stem)
        while at != -1:
            found.append(at)
            at = lower.find(stem, at + 1)
    return sorted(found)


def _run_length(text: str, at: int) -> int:
    """How many name characters `text` has from `at` on."""
    run = RUN.match(text, at)
    return run.end() - at if run else 0


class WorthReading:
    """The names of `line` given a value that extra_keyword_values may read (see the
    module), each asked for by `first(at)`, `at` never going back. A line not all ASCII (a
    word may fold to a stem in another script's letters: `\u212a` is `k`) or dense with stems
    is read name by name, as before."""

    def __init__(self, line: str) -> None:
        self.line = line
        self.stems = stem_starts(line) if line.isascii() else []
        self.every = not line.isascii() or len(self.stems) * DENSE > len(line)
        self.reversed = ""  # the line reversed, made when a run's start is first looked for
        self.next_stem, self.run_end = 0, 0  # the next stem to read, the end of its run's
        self.run: re.Match[str] | None = None  # the next run holding a stem, given a value
        self.pair: re.Match[str] | None = None  # the next `&` pair near a stem
        self.looked = False

    def first(self, at: int) -> re.Match[str] | None:
        """The first name worth reading that begins at `at` or after it."""
        if self.every:
            return EXTRA_ASSIGNED.search(self.line, at)
        if not self.looked or (self.run is not None and self.run.start() < at):
            self.run = self._next_run(at)
        if not self.looked or (self.pair is not None and self.pair.start() < at):
            self.pair = self._next_pair(at)
        self.looked = True
        if self.run is None or (self.pair is not None and self.pair.start() < self.run.start()):
            return self.pair
        return self.run

    def _next_run(self, at: int) -> re.Match[str] | None:
        """The first run of name characters holding a stem that begins at `at` or after it
        and is given a value; each run read once."""
        line, stems = self.line, self.stems
        while self.next_stem < len(stems):
            stem = stems[self.next_stem]
            self.next_stem += 1
            if stem < self.run_end:
                continue  # a stem of the run read last
            if not self.reversed:
                self.reversed = line[::-1]
            start = stem - _run_length(self.reversed, len(line) - stem)
            self.run_end = stem + _run_length(line, stem)
            if start >= at and (found := EXTRA_ASSIGNED.match(line, start)):
                return found
        return None

    def _next_pair(self, at: int) -> re.Match[str] | None:
        """The first name after an `&` at `at - 1` or after it, within FOLLOWING characters of
        a stem before it; each `&` of the line looked at once."""
        line, stems = self.line, self.stems
        index = bisect.bisect_right(stems, at - 1 - FOLLOWING)
        while index < len(stems):
            low = max(at - 1, stems[index])
            high = stems[index] + FOLLOWING
            while index + 1 < len(stems) and stems[index + 1] <= high:  # overlapping: one
                index += 1
                high = stems[index] + FOLLOWING
            amp = line.find("&", low, high + 1)
            while amp != -1:
                name = EXTRA_ASSIGNED.match(line, amp + 1)
                if name is not None:
                    return name
                amp = line.find("&", amp + 1, high + 1)
            at, index = high + 2, index + 1
        return None
