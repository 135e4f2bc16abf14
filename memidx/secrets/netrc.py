"""The passwords of `.netrc` entries in a text (pure): `~/.netrc` (curl, git, ftp and pip read
it) names its password with a bare word, so neither the keyword check (no `=` or `:`), the
URL patterns nor the command-line ones see it."""

from __future__ import annotations

import re

from memidx.secrets.lazy_pattern import lazy
from memidx.secrets.patterns import Finding

NETRC_KIND = "netrc-password"  # the password of a .netrc entry (machine HOST login U password P)

# An entry is `machine HOST login USER password PASS`, on one line or over several, or
# `default` for any other host. It is read from its `machine` word (or a `default` that opens a
# line: "by default login..." is prose) through keyword-value pairs only; its password counts
# when the entry also names a login, every value is a value (not another keyword) and it is
# netrc-shaped: prose that happens to string the words together ("the machine learning login
# flow sends password resets") names no host and no password a person would set.
# (the look-ahead for either's first character first: the engine then skips to those)
START = lazy(r"(?=[m \t>`\"'d])(?:(?<![\w.-])machine(?=\s)|^[ \t>`\"']*default(?=\s))", re.M)
TOKEN = lazy(r"\S+")
PAIRS = frozenset({"machine", "login", "password", "account", "port"})  # keyword, value
KEYWORDS = PAIRS | {"default", "macdef"}
MAX_TOKENS = 60  # at most this many tokens read from one start: a long run stays linear
# A host as netrc names it: a name, an address, optionally with its port; quoted (curl and
# Python's netrc read `machine "h.example.com"`), or after the quote of a pasted command.
HOST = lazy(r"[\"'`]?[A-Za-z0-9][\w.-]*(?::\d+)?[\"'`]?")
# A host a sentence would not name: with a dot (a domain, an address), a port, or localhost.
CLEAR_HOST = lazy(r"[\"'`]?(?:[\w-]+[.:].*|localhost[\"'`]?)")
SHOUTED = lazy(r"[A-Z]+(?:_[A-Z]+)*")  # `TOKEN`, `API_KEY`: a placeholder, as HOST is


def netrc_passwords(text: str) -> list[Finding]:
    """The passwords of `.netrc` entries, each entry read from its `machine` or `default`
    word (a placeholder such as `password <PASSWORD>` is none)."""
    if "password" not in text or ("machine" not in text and "default" not in text):
        return []  # literal finds first: nearly every text names neither
    found: list[Finding] = []
    read_to = 0  # the end of the last walk: a start inside it was read with it
    for start in START.finditer(text):
        at = text.index("default", start.start()) if start.group()[0] != "m" else start.start()
        if at >= read_to:
            passwords, read_to = _walk(text, at)
            found += passwords
    return found


def _walk(text: str, at: int) -> tuple[list[Finding], int]:
    """The passwords of the entries from `at` on, through keyword-value pairs (`default` has
    no value) up to a word that is none of them or a blank line; each counts when its entry
    names a login and is netrc-shaped (`_counted`). Returns them and where the walk stopped."""
    found: list[Finding] = []
    entry = _Entry()
    end = at
    tokens = TOKEN.finditer(text, at)
    for _ in range(MAX_TOKENS):
        keyword = next(tokens, None)
        if keyword is None or _blank_line(text, end, keyword.start()):
            break
        word = keyword.group()
        if word in ("machine", "default"):  # a new entry
            found += entry.counted(text)
            entry = _Entry(host="default" if word == "default" else None)
        if word == "default":
            end = keyword.end()
            continue
        value = next(tokens, None) if word in PAIRS else None
        if value is None or _blank_line(text, keyword.end(), value.start()):
            break
        if value.group().strip("\"'`") in KEYWORDS:
            break  # "machine, login and password": a list of the words, not an entry
        end = value.end()
        if word == "machine":
            entry.host = value.group()
        entry.login = entry.login or word == "login"
        if word == "password":
            entry.passwords += _password(text, value.start(), value.end())
    return found + entry.counted(text), end


class _Entry:
    """The entry being read: its host (`default` for that entry), login and passwords."""

    __slots__ = ("host", "login", "passwords")

    def __init__(self, host: str | None = None) -> None:
        self.host = host
        self.login = False
        self.passwords: list[Finding] = []

    def counted(self, text: str) -> list[Finding]:
        """Its passwords, when it names a login and a host-shaped host; a one-word host
        (`machine learning`) counts only with a password no sentence holds (two classes of
        character: `Zq8vX2m1kT`, not `resets`)."""
        host = self.host or ""
        if not self.login or not HOST.fullmatch(host):
            return []
        if host == "default" or CLEAR_HOST.fullmatch(host):
            return self.passwords
        from memidx.secrets.values import character_classes  # a .netrc's entry only

        return [f for f in self.passwords if character_classes(text[f.start : f.end]) >= 2]


def _blank_line(text: str, start: int, end: int) -> bool:
    return text.count("\n", start, end) > 1


def _password(text: str, start: int, end: int) -> list[Finding]:
    """The password at text[start:end], without the quotes around a pasted command's
    (`echo "machine h login u password p" >> ~/.netrc`), unless it is a placeholder."""
    from memidx.secrets.values import real_password  # a .netrc's entry only

    raw = text[start:end]
    password = raw.strip("\"'`")
    if len(password) < 4 or not real_password(password) or SHOUTED.fullmatch(password):
        return []
    left = start + raw.index(password)
    return [Finding(left, left + len(password), NETRC_KIND)]
