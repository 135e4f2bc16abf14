"""A value that holds a template's reference beside a literal (pure): `${VAR}`, `{{...}}`.

A reference stands for a value kept elsewhere (`${DB_PASSWORD}`, CloudFormation's
`{{resolve:ssm:/db}}`), but what is written beside it, or as its default, is written here:
`${PREFIX}Zq8vT2mW9pLq`, `{{resolve:ssm:/x}}Zq8vT2mW9pLq` and docker compose's
`${POSTGRES_PASSWORD:-Zq8vT2mW9pLq}` were let through as references, whole, and a value led
by one was never read."""

from __future__ import annotations

import string
from collections.abc import Callable, Iterator

from memidx.secrets.entropy import shannon
from memidx.secrets.lazy_pattern import lazy
from memidx.secrets.members import named_member
from memidx.secrets.signs import MIXED

# `${NAME}`, `${NAME:-default}` (`-`, `=`, `+` with or without `:`; `?` gives an error's
# message, no value), `${anything}`, `{{anything}}`; no brace inside
TEMPLATE = lazy(r"\$\{[A-Za-z_][\w.]*+(?::?+([-=+?])([^{}]*+))?+\}|\$\{[^{}]*+\}|\{\{[^{}]*+\}\}")
# a literal part worth judging: letters and digits, `_` or `-` inside (not a path, a URL's
# scheme, a port: `jdbc:postgresql://${HOST}:5432/db`)
LITERAL = lazy(r"[A-Za-z0-9]++(?:[-_]++[A-Za-z0-9]++)*+")
EDGES = "-_./:@\"'`"
# a secret-sounding name given a value a reference leads (group 2), quoted or not
LED = lazy(
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
            yield from _quoted_defaults(_reference(line, match.start(2), after))
            quote = line[match.start(2) - 1]
            if after > match.end() and (run := ATTACHED.match(line, after)):
                yield run[0]  # `${{ format('{0}', x) }}v4lue`: the reference's spaces ended
                # the value read, and what is written right after it was let through
            if after != -1 and quote not in "\"'`":  # a plain scalar:
                yield from _words_after(line, max(after, match.end()))  # its words after it
            # a shell's word goes on after its closing quote: `"${X}"v4lue` is one value
            # (its literal was let through, the quote ending the value); a literal part as
            # literal_parts reads one (`"${CI_JOB_TOKEN}"@gitlab.com/x.git` was refused)
            elif (
                after != -1
                and line[after : after + 1] == quote
                and (run := RUN_AFTER.match(line, after + 1))
                and LITERAL.fullmatch(run[0].strip(EDGES))
            ):
                yield run[0].strip(EDGES)


# A reference's first characters read for the literals it is given, where it closes (one
# closing later is read as left open); one left open is read up to the next that opens: each
# was read to the line's end, and a line of `token={{x ` took 19 s of CPU for 50 KB
REFERENCE_READ = 1024
OPENING = lazy(r"\$\{|\{\{")


def _reference(line: str, at: int, end: int) -> str:
    """The text of the reference that opens at `at` and closes at `end` (-1: left open)."""
    if end == -1:
        opens = OPENING.search(line, at + 2, at + REFERENCE_READ)
        end = opens.start() if opens else at + REFERENCE_READ
    return line[at:end]


def _reference_end(line: str, at: int) -> int:
    """Where the reference that opens at `at` closes (-1: never on its line). The words
    inside one are no literal: Helm's `{{ randAlphaNum 16 | b64enc }}`, Ansible's
    `{{ lookup('password', '/tmp/pw chars=ascii_letters') }}` and GitHub Actions'
    `${{ steps.app-token.outputs.token }}` were refused, a word inside judged as a value."""
    close = "}}" if line.startswith(("{{", "${{"), at) else "}"
    end = line.find(close, at, at + REFERENCE_READ)
    return -1 if end == -1 else end + len(close)


# The quoted literals a template's reference is given are its values, or what it makes one of:
# Helm's `{{ .Values.x | default "v4lue" }}`, `{{ printf "%s" "v4lue" }}`, `{{ coalesce .x
# "v4lue" }}`, `{{ ternary "a" "v4lue" true }}`, an Actions expression's `${{ secrets.X ||
# 'v4lue' }}` or `${{ format('{0}', 'v4lue') }}`, the literal it opens with (`{{ "v4lue" |
# b64enc }}`): only `default`, `||` and an opening one were read, the others let through. A
# literal with a space (`required "x is required"`) or a brace (`'{0}'`) is none; nor is a
# keyword argument (Ansible's `region='eu-west-1'`), nor a comparison's operand, nor what a
# function that looks a value up is given, a name (NAME_LOOKUPS: `{{ secret('db_pw_v2') }}`,
# `lookup('password', ...)`, `env "DB_PASSWORD"`, `hashFiles('**/x')`). Read token by token,
# once: what each literal is given to is known from the tokens before it.
TOKEN = lazy(r""""([^"\n]*+)"|'([^'\n]*+)'|(\{\{-?+|\|\|?+|\()|([\w.]++)|([=!<>]=|=)|\S""")
NO_LITERAL = lazy(r"[\s{}]")
NAME_LOOKUPS = frozenset(
    {"secret", "secrets", "lookup", "query", "q", "env", "getenv", "expandenv", "include",
     "template", "tpl", "required", "fail", "resolve", "vault", "hashfiles", "index", "get",
     "haskey", "pluck", "dig", "file", "files", "readfile", "contains", "startswith",
     "endswith", "fromjson", "ssm", "aws_ssm", "op", "onepassword", "keyring"}
)  # fmt: skip
# the shell's, `${X:-"v4lue"}` (`-`, `=`, with or without `:`): only in a shell's reference, as
# a keyword argument in a template's is none
SHELL_DEFAULT = lazy(r"""^\$\{[^{}]*?:?+[-=][ \t]*+(["'])([^\s"'{}]++)\1""")


def _quoted_defaults(reference: str) -> Iterator[str]:
    """The quoted literals `reference` gives as its value (TOKEN, SHELL_DEFAULT), but for a
    piece a format joins to a reference that is no random string's (FORMATS)."""
    if reference.startswith("${") and not reference.startswith("${{"):
        for match in SHELL_DEFAULT.finditer(reference):
            yield match[2]
        return
    for literal, callee, joined in _given_literals(reference):
        piece = joined and callee.rpartition(".")[2].lower() in FORMATS
        if not piece or _random_piece(literal):
            yield literal


def _given_literals(reference: str) -> Iterator[tuple[str, str, bool]]:
    """Each quoted literal `reference` gives (see above), the callee it is given to, and
    whether that call is given a reference too (a name, a call, or a value piped to it)."""
    callee, opened, last, held = "", True, "", None  # `held`: a literal a `==` may follow
    outer: list[tuple[str, bool, int]] = []  # the callee each `(` opened inside (at most 64)
    call, joined, piped = 0, set[int](), False  # each callee's call, those given a reference
    given: list[tuple[str, str, int]] = []
    for token in TOKEN.finditer(reference):
        literal = token[1] if token[1] is not None else token[2]
        if token[5] is not None:  # a comparison's operand, or a keyword argument's
            held = None
        elif held is not None:
            given.append(held)
            held = None
        if token[3] is not None:  # `{{`, `|`, `(`: a function's name may follow
            called = token[3] == "(" and reference[token.start() - 1 : token.start()].isalnum()
            if token[3] == "(" and len(outer) < 64:
                outer.append((callee, opened, call))
            callee = last if called else ""
            opened, piped = not callee, token[3] == "|"
        elif token[0] == ")" and outer:  # `default (env "X") "v4lue"`: the outer's again
            callee, opened, call = outer.pop()
        elif token[4] is not None and opened:
            callee, opened, call = token[4], False, call + 1
            if piped:  # `{{ .Values.x | printf "%s-%s" "v4lue" }}`
                joined.add(call)
        elif token[4] is not None:  # a name given to the call
            joined.add(call)
        elif literal and not NO_LITERAL.search(literal) and not last.endswith("="):
            held = (literal, callee, call) if _given(callee, literal) else None
        last = token[4] or token[5] or ""
    given += [held] if held is not None else []
    for literal, callee, at in given:  # a reference after a piece joins it too
        yield literal, callee, at in joined


# A random string given to a lookup (`{{ env "Zq8vT2mW9pLq" }}`, `secret('Zq8vT2...')`): no
# name holds a run of letters between digits (signs.MIXED), a random string's does
RANDOM_NAME = lazy(r"[A-Za-z0-9]{8,}+")


def _given(callee: str, literal: str) -> bool:
    """Whether `literal`, given to `callee`, is a value to judge: not a name a lookup is given
    (NAME_LOOKUPS), but for a random string's."""
    if callee.rpartition(".")[2].lower() not in NAME_LOOKUPS:
        return True
    return RANDOM_NAME.fullmatch(literal) is not None and MIXED.search(literal) is not None


# The functions that join their pieces into one value: a piece joined to a reference
# (`${{ format('{0}-{1}', github.ref, 'deploy2prod') }}`, Helm's `printf "%s-%s" .Values.x
# "v4lue"`) is a part of a name, refused as a whole value was; it is judged only when random:
# at least 8 characters, as every value judged (12 let `Zq8vT2mW9pL` through), of high entropy
# (3 bits a character, as `Zq8vT2mW9pLq`'s 3.42, not `deploy-2024-v2`; 8 characters need 8
# kinds), letters between digits no name holds (members.named_member)
FORMATS = frozenset({"format", "printf", "print"})
PIECE_CHARSET = string.ascii_letters + string.digits + "-_"
# a sign no name's part holds: a password's (`printf "%s:%s" .Values.user "xK9#mP2$vL5@"`,
# Helm's basic auth, and `"P@ssw0rd2024!"` were let through as a name's parts), judged whole
PASSWORD_SIGN = lazy(r"[^\w./:-]")
EMAIL_DOMAIN = lazy(r"[\w.+-]*+@[A-Za-z0-9-]++(?:\.[A-Za-z0-9-]++)++")  # `@example.com`


def _random_piece(literal: str) -> bool:
    """Whether a piece a format joins to a reference is a random string's (FORMATS), or a
    password's (PASSWORD_SIGN)."""
    if PASSWORD_SIGN.search(literal) and not EMAIL_DOMAIN.fullmatch(literal):
        return True
    return (
        len(literal) >= 8
        and MIXED.search(literal) is not None
        and not named_member(literal)
        and shannon(literal, PIECE_CHARSET) >= 3.0
    )


RUN_AFTER = lazy(r"[^\s\"'`;&|)<>]++")  # to a shell's separator
ATTACHED = lazy(r"[^\s\"'`;&|)<>${}]++")  # to a quote, a separator or the next reference
# a word after a plain value a reference leads, on its line, up to a comment
WORD_AFTER = lazy(r"[ \t]++([^\s#]\S*+)")


def _words_after(line: str, at: int) -> Iterator[str]:
    """The words of the plain scalar after its first (YAML's `password: ${X} v4lue` is one
    value; the reference's first word alone was judged), at most 8."""
    for _ in range(8):
        word = WORD_AFTER.match(line, at)
        if word is None:
            return
        yield word[1]
        at = word.end()


# A value closing a template's `}}` it did not open sits inside the template, after a name in
# it: CloudFormation's `{{resolve:secretsmanager:MySecret:SecretString:password}}` was refused
IN_TEMPLATE = lazy(r"[^{\s]*\}\}[\"'`]?").fullmatch


def templated(line: str, raw: str) -> bool:
    """Whether `raw` closes a template (IN_TEMPLATE) left open before it on its line: any
    `{{` on the line, one closed before the name too, let `password: v4lue}}` through."""
    at = line.find(raw) if "{{" in line and IN_TEMPLATE(raw) else -1
    return at > 0 and line.rfind("}}", 0, at) < line.rfind("{{", 0, at)
