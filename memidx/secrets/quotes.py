"""Typographic quotes read as the plain ones they stand for, where they delimit a value, and
fullwidth assignment signs as plain ones (pure):
`password: \u201cv4lue\u201d`, as a word processor or a chat pastes it, was no assignment to the
detectors, where `password: "v4lue"` was one."""

from __future__ import annotations

import re

from memidx.secrets.lazy_pattern import lazy

# curly double, guillemets, fullwidth double, CJK corner brackets, double primes (and the CJK
# ones, `\u301d...\u301e`); curly single, single guillemets, fullwidth single, primes: each and the
# plain quote it is
_DOUBLE = (
    "\u201c\u201d\u201e\u201f\u00ab\u00bb\uff02\u300c\u300d\u300e\u300f"
    "\u2033\u2036\u301d\u301e\u301f"
)
_SINGLE = "\u2018\u2019\u201a\u201b\u2039\u203a\uff07\u2032\u2035"
_TYPOGRAPHIC = _DOUBLE + _SINGLE
# a fullwidth colon or equals sign, as a CJK input method types them (`password\uff1av4lue`)
_FULLWIDTH_SIGNS = "\uff1a\uff1d"
PLAIN_QUOTES = str.maketrans(
    _TYPOGRAPHIC + _FULLWIDTH_SIGNS, '"' * len(_DOUBLE) + "'" * len(_SINGLE) + ":="
)
_BESIDE = r"\s\"'`:=,;()\[\]{}<>.!?*\u2026\u2013\u2014" + _TYPOGRAPHIC + _FULLWIDTH_SIGNS
# A typographic quote that opens or closes a value: the start, the end, a space, a quote, an
# assignment's or a structure's sign, or a sentence's end (`password: \u201cv4lue\u201d.`) on
# one side. One between two other characters is part of a value (`Zk9q\u2019W2...`): read as a
# plain quote, it cut the password in two, each part too short to judge, or masked its start
# alone and showed the rest. A fullwidth sign is read as the plain one wherever it stands.
# (The look-ahead for any of them first: the engine then skips to each, where the look-behind
# was tried at every character of a long transcript.)
DELIMITING_QUOTE = lazy(
    f"(?=[{_TYPOGRAPHIC}{_FULLWIDTH_SIGNS}])"
    f"(?:(?<![^{_BESIDE}])[{_TYPOGRAPHIC}]|[{_TYPOGRAPHIC}](?![^{_BESIDE}])|[{_FULLWIDTH_SIGNS}])"
)


def plain_quotes(text: str) -> str:
    """`text` with each typographic quote that delimits a value read as the plain quote it
    stands for, and each fullwidth `:` or `=` as the plain one, one character for one (every
    place found in it is the same in `text`); `text` itself when it holds none (a long
    transcript is never copied for it)."""
    if DELIMITING_QUOTE.search(text) is None:
        return text
    return DELIMITING_QUOTE.sub(lambda quote: quote.group().translate(PLAIN_QUOTES), text)


# A value an assignment gives between two different quotes (`password = "v4lue'`), a run
# without spaces or quotes, its closing quotes (`'v4lue""`, `"v4lue'''`: a stray quote
# after the closing one hid the value) followed by a space, a sign or the line's end: a quote
# inside a word (`don't`) closes nothing, and prose assigns no such run.
MISMATCHED = lazy(
    r"(?::=|=>|[:=])[ \t]*+([\"'`])[^\s\"'`]++(?!\1)([\"'`][\"'`]*+)(?=[\s,;)\]}.!?]|$)"
)


def matched_quotes(text: str) -> str:
    """`text` with the closing quote of each value opened by another quote read as the one that
    opened it, one character for one; `text` itself when it holds none. A demanding user reads
    `password = "hunter2secret'` as a value, which the detectors, asking for the same quote at
    both ends, missed."""
    if MISMATCHED.search(text) is None:
        return text
    return MISMATCHED.sub(_closed_alike, text)


def _closed_alike(match: re.Match[str]) -> str:
    """The assignment `match` with its closing quotes each read as the one that opened it."""
    closing = len(match.group(2))
    return match.group()[:-closing] + match.group(1) * closing


# A value a quote opens that the line's end leaves open (`password = "hunter2secret`, its
# closing quote deleted or never typed): the quote after an assignment's sign, a space, a
# call's parenthesis or `@`, a run without spaces or quotes, then only spaces to the end (a
# CRLF file's `\r` one of them).
UNCLOSED = lazy(r"(?<=[\s:=>(@,\[])([\"'`])[^\s\"'`]++(?=[^\S\n]*+$)")


def closed_at_end(line: str) -> tuple[str, int]:
    """`line` (one line) with a value its end leaves open closed by a copy of the quote that
    opened it, put right after the value, and where that quote stands (`len(line)` when none
    is put): every place before it is the same in `line`, and nothing found ends past it (a
    value run to its end took the carriage return or the line break after it). The detectors,
    asking for a closing quote, missed `password = "hunter2secret` and `api_key: 'sk_...` at
    a line's end, where `password = hunter2secret` was refused."""
    match = UNCLOSED.search(line)
    if match is None:
        return line, len(line)
    return line[: match.end()] + match.group(1) + line[match.end() :], match.end()


# A Python string given to a name: its prefix (`b"v4lue"`, `r'...'`, `f`, `rb`, `u`, and in
# capitals, `B'...'`, `RB'...'`, which were let through) followed by a quote and what no
# closing quote is followed by (an HTML link's `?a=B">`, `=b" ` end a one-letter value) after
# an assignment's sign, a call's parenthesis, a `,` or a `[` and any spaces
# (`password =  b"..."`, aligned), and a run without spaces or quotes in tripled quotes
# (`'''v4lue'''`, `"""v4lue"""`, or left open at its line's end). The keyword
# rules, asking for one quote right after the sign, missed them.
# (The sign is matched, not looked behind: a look-behind tried at every character cost ~20 ms
# for 500 KB of HTML that holds no Python.)
PREFIXED = lazy(r"([=:(,\[][ \t]*+)([rbfuRBFU]{1,2})(?=[\"'][^\s>])")
TRIPLED = lazy(r"(?m)(\"\"\"|''')[^\s\"'`]++(\1|(?=[^\S\n]*+$))")


def python_strings(text: str) -> str:
    """`text` with each Python string's prefix (PREFIXED) read as spaces and its tripled
    quotes (TRIPLED) as one quote and two spaces (`password =   'v4lue'  `), one character for
    one; `text` itself when it holds none (a long transcript is never copied for it)."""
    if PREFIXED.search(text) is None and TRIPLED.search(text) is None:
        return text
    text = PREFIXED.sub(lambda m: m.group(1) + " " * len(m.group(2)), text)
    return TRIPLED.sub(_one_quote, text)


def _one_quote(match: re.Match[str]) -> str:
    quote = match.group(1)[0]
    value = match.group()[3 : len(match.group()) - len(match.group(2))]
    return f"  {quote}{value}" + (f"{quote}  " if match.group(2) else "")


# JSX's string literal in braces given to a prop (`apiKey={"v4lue"}`, `value={'v4lue'}`, a
# template without `${`; spaces inside the braces too, `{ "v4lue" }`): the braces made it a
# reference, and it was let through where `apiKey="v4lue"` was refused. Read as a quoted
# value, each brace a space.
BRACED = lazy(r"(=[ \t]*+)(\{[ \t]*+)([\"'`])([^\s\"'`{}$]++)\3([ \t]*+\})")


def jsx_literals(text: str) -> str:
    """`text` with each JSX string literal in braces (BRACED) read as a quoted value, one
    character for one; `text` itself when it holds none."""
    if BRACED.search(text) is None:
        return text
    return BRACED.sub(lambda m: f"{m[1]}{' ' * len(m[2])}{m[3]}{m[4]}{m[3]}{' ' * len(m[5])}", text)


# A Vue or Angular binding given a string literal (`:api-key="'v4lue'"`, `v-bind:token=...`,
# `[apiKey]="'v4lue'"`): the expression's quotes inside the attribute's, and Angular's
# brackets around the name, hid the value. Read as `api-key= 'v4lue' `, each bracket and
# outer quote a space. Tried only where a run of name characters begins (linear).
BOUND = lazy(r"(?<![\w.:@\[-])(\[?+)([\w.:@-]++)(\]?+)=\"'([^\s\"'`{}$]++)'\"")


def bound_literals(text: str) -> str:
    """`text` with each framework binding's string literal (BOUND) read as a quoted value,
    one character for one; `text` itself when it holds none."""
    if "=\"'" not in text:
        return text
    return BOUND.sub(lambda m: f"{' ' * len(m[1])}{m[2]}{' ' * len(m[3])}= '{m[4]}' ", text)


def code_strings(text: str) -> str:
    """`text` with Python's strings, JSX's braced literals and Vue's or Angular's bound ones
    read as quoted values."""
    return bound_literals(jsx_literals(python_strings(text)))
