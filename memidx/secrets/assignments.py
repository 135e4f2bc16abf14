"""The values assigned to the names memidx adds to the library's list (`GITHUB_TOKEN=...`,
`credentials: ...`), and the quoted values starting with a sign the library's rules skip for
every secret-sounding name (pure): each is judged as every assigned value is."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from memidx.secrets.identifiers import SECRET_WORDS, WORD

# Names the library's keyword list lacks: `GITHUB_TOKEN=...`, `credentials: ...`, `SMTP_PASS=...`,
# `x-api-key: ...`, `private-key:` (HTTP's, Helm's and HTML's spelling; the library reads
# `api_key`, `apikey`), Azure's `Ocp-Apim-Subscription-Key:`
# (a name: a run of `[\w.-]` whose part after its last dot holds one of these words).
EXTRA_WORDS = re.compile(
    r"(?i)token|credential|access[_-]?key|secret[_-]?key|(?:api|private)-key|subscription[_-]?key"
    r"|[_-]pass\b"
)
# A run of name characters, then an assignment; VALUE its value (group 1), read only after a
# name that holds a word. Tried only where a run begins and never backing into it: the one
# expression of word, prefix and suffix read each way of splitting a run around a word, cubic
# in the run (`tokentoken...token=`: 1.8 s for 1 KB, minutes for 8 KB); and a value read after
# each name, a word or not, read `a:a:a:...` to its end from each (3 s for 64 KB).
EXTRA_ASSIGNED = re.compile(r"(?<![\w.-])([\w.-]++)[\"']?+\s*+(?::=|=>|[:=])")
VALUE = re.compile(r"\s*[\"'`]?([^\s\"'`,;]+)")
# A quoted value that starts with a sign, which the library's rules read as no value (theirs
# must start with a word character): `password = "#Xk9..."` was let through. Not `$`, `%`,
# `*`, `-`, `.`, `^`, `~`, `/`: a variable, a glob, an option, a file, a version.
SIGN_LED = re.compile(r"[ \t]*+[\"'`]([!#&+?@|=:;,\\][^\s\"'`]*+)[\"'`]")
# What a sign leads in a developer's notes that is no password: a path or a package (`@/lib/x`,
# `@azure/identity`, `+refs/heads/x`: each name as code writes one, SEGMENT), an HTML entity
# (`&lt;your-password&gt;`) or a filter (`|trim`); and a field's name (FIELD, a secret's word
# among its words: `#id_password1`, a CSS selector; `:password`, a symbol; `@@DB_PASSWORD@@`;
# `!ENV:API_KEY`): each was refused. Read loosely (any `/`, any `&...;`, any run after a `-`),
# they let through base64 (`+wJalrXUtnFEMI/K7MDENG/...`) and `#secret-Zk9qW2vLp8Rt7`.
NO_PASSWORD = re.compile(
    r"&(?:[A-Za-z][a-z]{1,7}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});|^\|[a-z_][a-z0-9_]*+$"
)
# A capital only before a small letter (`PasswordInput.tsx`), or capitals alone (`README`)
SEGMENT = re.compile(r"(?:[A-Z][a-z]|[a-z0-9._-])*+|[A-Z._-]++")
NAMED = re.compile(r"[A-Za-z]")
# Words joined by `_` or `-`, or by case from a small letter on (`signupPasswordInput`), as
# identifiers.py reads a variable's name, each word's digits at its end (`Panel2`);
# `#hunter2secret`, `#MySecret2024`, `#secret-Zk9qW2vLp8Rt7` stay passwords.
FIELD = re.compile(
    r"[a-z]++[0-9]*+(?:[_-](?:[a-z]++[0-9]*+|[A-Z][a-z]++[0-9]*+|[0-9]++)|[A-Z][a-z]++[0-9]*+)++"
    r"|[A-Z][A-Z0-9]*+(?:[_-][A-Z0-9]++)++"
)
SIGNS = "!#&+?@|=:;,\\"
PARTS = re.compile(r"[:;,=.]")


def _names_a_field(rest: str) -> bool:
    """Whether a sign-led value is a field's name, not a password (see FIELD)."""
    for part in PARTS.split(rest.strip(SIGNS)):
        words = [w.lower() for w in WORD.findall(part)]
        if any(w in SECRET_WORDS for w in words) and (
            part.lower() in SECRET_WORDS or FIELD.fullmatch(part)
        ):
            return True
    return False


def no_password(rest: str) -> bool:
    """Whether a sign-led value is a path, an entity, a filter or a field's name."""
    names = rest.lstrip(SIGNS).split("/")
    # two names at least with a letter: `!Passw0rd/2024` is no path
    if sum(NAMED.search(name) is not None for name in names) >= 2 and all(
        SEGMENT.fullmatch(name) for name in names
    ):
        return True
    return NO_PASSWORD.search(rest) is not None or _names_a_field(rest)


def extra_keyword_values(line: str, secret_word: Callable[[str], bool]) -> Iterator[str]:
    """The values assigned to the names EXTRA_WORDS makes secret-sounding, and the quoted
    values starting with a sign (SIGN_LED) given to any secret-sounding name, in order."""
    match = EXTRA_ASSIGNED.search(line)
    while match:
        start, end = match.span(1)
        last = line.rfind(".", start, end) + 1 or start  # the word is after the name's last dot
        value = None
        if EXTRA_WORDS.search(line, last, end):
            # `:=` or `=>` with no value after it is `:` or `=` with one that starts `=`, `>`
            value = VALUE.match(line, match.end())
            if value is None and line[match.end() - 2 : match.end()] in (":=", "=>"):
                value = VALUE.match(line, match.end() - 1)
        elif secret_word(line[last:end]):
            value = SIGN_LED.match(line, match.end())
        # a sign-led path, entity, filter or field's name, after any secret-sounding name
        # (`token: "@octokit/auth-token"` was refused where `secret: "@azure/identity"` was not)
        if value and value[1][0] in SIGNS and no_password(value[1]):
            value = None
        if value:
            yield value.group(1)
            match = EXTRA_ASSIGNED.search(line, value.end())
        else:  # what the old expression took for a value may hold a name
            match = EXTRA_ASSIGNED.search(line, end)
