"""A value that holds a template's reference beside a literal (pure): `${VAR}`, `{{...}}`.

A reference stands for a value kept elsewhere (`${DB_PASSWORD}`, CloudFormation's
`{{resolve:ssm:/db}}`), but what is written beside it, or as its default, is written here:
`${PREFIX}Zq8vT2mW9pLq`, `{{resolve:ssm:/x}}Zq8vT2mW9pLq` and docker compose's
`${POSTGRES_PASSWORD:-Zq8vT2mW9pLq}` were let through as references, whole, and a value led
by one was never read."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

# `${NAME}`, `${NAME:-default}` (`-`, `=`, `+` with or without `:`; `?` gives an error's
# message, no value), `${anything}`, `{{anything}}`; no brace inside
TEMPLATE = re.compile(
    r"\$\{[A-Za-z_][\w.]*+(?::?+([-=+?])([^{}]*+))?+\}|\$\{[^{}]*+\}|\{\{[^{}]*+\}\}"
)
# a literal part worth judging: letters and digits, `_` or `-` inside (not a path, a URL's
# scheme, a port: `jdbc:postgresql://${HOST}:5432/db`)
LITERAL = re.compile(r"[A-Za-z0-9]++(?:[-_]++[A-Za-z0-9]++)*+")
EDGES = "-_./:@\"'`"
# a secret-sounding name given a value a reference leads (group 2), quoted or not
LED = re.compile(
    r"(?<![\w.-])([\w.-]++)[\"']?+[ \t]*+(?::=|=>|[:=])[ \t]*+[\"'`]?+((?:\$\{|\{\{)[^\s\"'`]*+)"
)


def literal_parts(value: str) -> list[str] | None:
    """The literal parts of `value` beside its template references, and the defaults they
    give (judged whole); None when it holds no reference."""
    beside: list[str] = []
    defaults: list[str] = []
    at = 0
    for match in TEMPLATE.finditer(value):
        beside.append(value[at : match.start()].strip(EDGES))
        if match[1] and match[1] != "?" and match[2]:
            defaults.append(match[2])
        at = match.end()
    if at == 0:
        return None
    beside.append(value[at:].strip(EDGES))
    return [part for part in beside if LITERAL.fullmatch(part)] + defaults


def template_led(line: str, named: Callable[[str], bool]) -> Iterator[str]:
    """The values a template's reference leads given to a name `named` says is
    secret-sounding (`password: ${X}v4lue`, `token = "{{resolve:ssm:/x}}v4lue"`)."""
    if "${" not in line and "{{" not in line:
        return
    for match in LED.finditer(line):
        start, end = match.span(1)
        if named(line[(line.rfind(".", start, end) + 1) or start : end]):
            yield match[2]
            after = _reference_end(line, match.start(2))
            yield from _quoted_defaults(line[match.start(2) : after if after != -1 else None])
            if after != -1 and line[match.start(2) - 1] not in "\"'`":  # a plain scalar:
                yield from _words_after(line, max(after, match.end()))  # its words after it


def _reference_end(line: str, at: int) -> int:
    """Where the reference that opens at `at` closes (-1: never on its line). The words
    inside one are no literal: Helm's `{{ randAlphaNum 16 | b64enc }}`, Ansible's
    `{{ lookup('password', '/tmp/pw chars=ascii_letters') }}` and GitHub Actions'
    `${{ steps.app-token.outputs.token }}` were refused, a word inside judged as a value."""
    close = "}}" if line.startswith(("{{", "${{"), at) else "}"
    end = line.find(close, at)
    return -1 if end == -1 else end + len(close)


# A quoted default a reference gives (group 2): the shell's `${X:-"v4lue"}`, Helm's
# `{{ .Values.x | default "v4lue" }}` or `{{ default "v4lue" .Values.x }}`, an Actions
# expression's `${{ secrets.X || 'v4lue' }}`; each was let through, the quotes ending the value
# (a message with spaces, `required "x is required"`, is none)
QUOTED_DEFAULT = re.compile(r"""(?:\bdefault|\|\||:?+[-=])[ \t(]*+(["'])([^\s"'{}]++)\1""")


def _quoted_defaults(reference: str) -> Iterator[str]:
    """The quoted literals `reference` gives as its value's default (QUOTED_DEFAULT)."""
    for match in QUOTED_DEFAULT.finditer(reference):
        yield match[2]


# a word after a plain value a reference leads, on its line, up to a comment
WORD_AFTER = re.compile(r"[ \t]++([^\s#]\S*+)")


def _words_after(line: str, at: int) -> Iterator[str]:
    """The words of the plain scalar after its first (YAML's `password: ${X} v4lue` is one
    value; the reference's first word alone was judged), at most 8."""
    for _ in range(8):
        word = WORD_AFTER.match(line, at)
        if word is None:
            return
        yield word[1]
        at = word.end()
