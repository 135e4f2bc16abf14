"""A YAML plain scalar a secret-sounding key gives on its line and continues on the lines
below, more indented (pure): `password: Zq8vT2mW` over `  9pLqXk7RtY`. YAML folds them into
one value; a long token wrapped so was never read, each line judged alone, too short or no
assignment at all. Its parts are joined without the space YAML puts between them (a wrapped
token's are one) and judged as one value; when it looks secret each part is masked. Only runs
without spaces count: a wrapped sentence (`description: the token is` over `  rotated daily`)
is prose."""

from __future__ import annotations

from collections.abc import Iterator

from memidx.secrets import library
from memidx.secrets.lazy_pattern import lazy
from memidx.secrets.patterns import Finding
from memidx.secrets.values import looks_secret
from memidx.secrets.windows import secret_word

# a key, in a list item too, in quotes or not, given a plain scalar without a space (not a
# quote, a block's indicator, an anchor, a tag, an alias or a flow collection), nothing after
# it (a comment ends it: no line below continues it) (group 1 its indentation, 2 the key, 3
# the value)
KEY_PLAIN = lazy(
    r"([ \t]*+)(?:- )?[\"']?+([\w.-]++)[\"']?+[ \t]*+:[ \t]++([^\s\"'`#|>&!*{\[%@][^\s]*+)"
    r"[ \t]*+\r?"
)
# a line below that continues it: more indented, one run without a space, no key, no item,
# no comment, a comment after it (group 3) its last (`  9pLqXk7RtY  # rotated`: let through)
# (group 1 its indentation, 2 the run)
CONTINUED = lazy(
    r"([ \t]++)(?![-#][ \t]|#)([^\s:]++|[^\s]*+:(?=\S)[^\s]*+)(?:[ \t]++(#[^\r\n]*+))?+"
    r"[ \t]*+\r?"
)
# the lines below judged with the key's at most; every line that continues it is masked when
# they look secret (a token wrapped over 20 lines showed its last 4: they are the secret's too)
FOLDED_LINES = 16


def folded_values(text: str, start: int, end: int, kind: str) -> Iterator[Finding]:
    """The parts of a plain scalar folded over the lines below `text[start:end]` (see the
    module), when they look secret joined."""
    if not text.startswith((" ", "\t"), end + 1):
        return  # no line below more indented: most lines stop here
    key = KEY_PLAIN.fullmatch(text, start, end)
    if key is None or not secret_word(key.group(2)):
        return
    indent, spans = len(key.group(1)), [key.span(3)]
    at = end + 1
    while at <= len(text):
        stop = text.find("\n", at)
        stop = len(text) if stop == -1 else stop
        part = CONTINUED.fullmatch(text, at, stop)
        if part is None or len(part.group(1)) <= indent:
            break
        spans.append(part.span(2))
        at = stop + 1 if part.group(3) is None else len(text) + 1  # a comment ends the value
    judged = "".join(text[a:b] for a, b in spans[: FOLDED_LINES + 1])
    if len(spans) > 1 and looks_secret(judged, library.entropy()):
        yield from (Finding(a, b, kind) for a, b in spans)
