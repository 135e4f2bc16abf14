"""A value given on the lines below its secret-sounding key (pure): YAML's `password: |` or
`>-` (a literal or folded block), or `password:` alone with the value on the next line, more
indented, as a Kubernetes manifest or an Ansible file in a note holds one: a scalar, the items
of a list (`- value`, as indented as the key too), or the values of a flow collection
(`{value: x}`, `[x]`). Read one line at a time, the key's line holds no value, so no keyword
rule saw one."""

from __future__ import annotations

from collections.abc import Iterator

from memidx.secrets import library
from memidx.secrets.assignments import auth_method, is_test_verdict
from memidx.secrets.dashed_names import password_named
from memidx.secrets.lazy_pattern import lazy
from memidx.secrets.patterns import Finding
from memidx.secrets.short import short_below
from memidx.secrets.values import looks_secret
from memidx.secrets.windows import secret_word

# a key alone on its line (in a list item too), in quotes or not, then a block's indicator
# (`|`, `>`, with chomping and indentation: `|-`, `>+`, `|2`) or nothing, and a comment; the
# line's \r of a file saved on Windows (CRLF) too: such a file's keys were never read
KEY_ALONE = lazy(
    r"([ \t]*+)(?:- )?[\"']?+([\w.-]++)[\"']?+[ \t]*+:[ \t]*+([|>][+-]?[1-9]?[+-]?)?[ \t]*+(?:#.*)?"
    r"\r?"
)
BLOCK_LINES = 64  # the lines of a block read: a block of nested keys is never read twice over
# a line below a key alone that is a key itself (`valueFrom:`, `"key":`): a nested mapping
NESTED_KEY = lazy(r"[\"']?+[\w.-]++[\"']?+[ \t]*+:(?!\S)")
# a key whose value on its line is a flow collection (`password: {value: x}`, `token: [x]`)
KEY_FLOW = lazy(
    r"[ \t]*+(?:- )?[\"']?+([\w.-]++)[\"']?+[ \t]*+:[ \t]*+([{\[][^\n]*?[}\]])[ \t]*+(?:#.*)?\r?"
)
# a name given a Python string in tripled quotes that its line's end leaves open, its value
# below (`password = """` over `Zq8...` and `"""`), a prefix (`b`, `R`) before the quotes; a
# comment after them (an allow marker: `password = """  # memidx: allow-secret`) hid the value
TRIPLE_OPEN = lazy(
    r"(?<![\w.-])([\w.-]++)[\"'\]]?+[ \t]*+(?::=|=>|[:=(])[ \t]*+[rbfuRBFU]{0,2}"
    r"(\"\"\"|''')[ \t]*+(?:#[^\n]*+)?\r?$"
)
ITEM = lazy(r"-(?:[ \t]++|$)")  # a list's item: its dash, and the item after it
COMMENT = lazy(r"[ \t]++#.*+")  # after a plain value (in a block, `#` is its text)
# a flow collection's entry, between `{`, `[` or `,` and the next of them: a mapping's value
# after its key's `: ` (or `":` of a JSON key), else the entry itself (a sequence's item)
FLOW_ENTRY = lazy(r"(?:[^,{}\[\]:]*+(?::[ \t]|\":|':))?+[ \t]*+([^,{}\[\]]*)")


class Judged:
    """What the keys alone of one text judged on the lines below them, kept across its keys:
    nested keys read one line again and again, up to 64 times. `secret`: whether each line,
    by where it starts (and whether names are read as such), looked secret (its entropy was
    measured up to 64 times over); `verdicts`: whether each value (its span), below a key of
    each name, is a secret; `shown`: the spans found already, each yielded once (every key
    above a line yielded it again: 1 MB of 64 nested keys made 1.2 million findings to sort
    and merge, ~5 s, half the check's time)."""

    __slots__ = ("secret", "shown", "verdicts")

    def __init__(self) -> None:
        self.secret: dict[tuple[int, bool], bool] = {}
        self.verdicts: dict[tuple[int, int, str, str], bool] = {}
        self.shown: set[tuple[int, int]] = set()


def values_below(
    text: str, start: int, end: int, kind: str, judged: Judged | None = None
) -> Iterator[Finding]:
    """The values that look secret on the lines below the line `text[start:end]`, when that
    line is a secret-sounding key alone: each line of its block, or its next line unless it is
    a key (`password:` over `  secretKeyRef:`). `judged`: what the keys above judged."""
    key = KEY_ALONE.fullmatch(text, start, end)
    if key is None or not secret_word(key.group(2)):
        yield from _tripled_below(text, start, end, kind)
        return
    judged = Judged() if judged is None else judged
    indent, block = len(key.group(1)), key.group(3) is not None
    listed = not text.startswith("- ", start + indent)  # a list may stand under its column
    for at, begin, _, value in lines_below(text, end + 1):  # a blank line is part of a block
        if not block and value.startswith("#"):
            continue  # a comment between a key and its value (`password:`, `# rotated`, `v4lue`)
        if not block and ITEM.match(value) and begin - at >= indent + (not listed):
            yield from _items(text, at, begin - at, kind, judged, name=key[2])
            return  # a list: its items are the value, each a short password as on one line
        if begin - at <= indent or (not block and NESTED_KEY.match(value)):
            return  # the block ended, or the key holds a mapping
        yield from _judged(
            text,
            begin,
            begin + len(value),
            kind,
            judged,
            plain=not block,
            name=key[2],
            short=key[2],
        )
        if not block:
            return  # a plain value: its first line is all this reads


def _tripled_below(text: str, start: int, end: int, kind: str) -> Iterator[Finding]:
    """The lines of a Python string in tripled quotes that a secret-sounding name's line opens
    (TRIPLE_OPEN) and the lines below hold, up to its closing quotes, when they are a value
    (runs without spaces, at most BLOCK_LINES) that looks secret as a whole: each line."""
    if text.find('"""', start, end) == -1 and text.find("'''", start, end) == -1:
        return  # a literal find first: the expression tried at each name of a long line cost more
    opened = TRIPLE_OPEN.search(text, start, end)
    if opened is None or not secret_word(opened.group(1).rpartition(".")[2]):
        return
    quotes, spans = opened.group(2), list[tuple[int, int]]()
    for _, begin, _, line in lines_below(text, end + 1):
        # its closing quotes (read as one by quotes.python_strings when a `)` or `,` follows),
        # and a comment after them
        held, shut, rest = line.partition(quotes[0])
        held = held.rstrip()
        if " " in held or rest.partition("#")[0].strip(",;)]} \t" + quotes[0]):
            return  # prose (a docstring's), or more than a value
        if held:
            spans.append((begin, begin + len(held)))
        if shut:
            break
    else:
        return  # not closed within BLOCK_LINES lines: no value
    value = "".join(text[a:b] for a, b in spans)
    if spans and looks_secret(value, library.entropy()):
        yield from (Finding(a, b, kind) for a, b in spans)


def flow_values(text: str, start: int, end: int, kind: str, judged: Judged) -> Iterator[Finding]:
    """The values that look secret of the flow collection a secret-sounding key holds on the
    line `text[start:end]` (`password: {value: x}`): no keyword rule reads into one."""
    key = KEY_FLOW.fullmatch(text, start, end)
    if key is not None and secret_word(key.group(1)):
        yield from _judged(text, key.start(2), key.end(2), kind, judged, name=key[1], short=key[1])


def _items(
    text: str, at: int, column: int, kind: str, judged: Judged, *, name: str
) -> Iterator[Finding]:
    """The items that look secret of the list whose first item's line begins at `at`, its
    dashes at `column`: each item's text on its dash's line (an item that is a mapping,
    `- name: x`, is no value; its keys are read on their own lines), a short password as
    below the key (`password:` over `  - hunter2` was let through)."""
    short = name
    for begin, stop in item_lines(text, at, column):
        if begin - at != column or not (dash := ITEM.match(text, begin, stop)):
            at = stop + 1
            continue  # a line of the item above, more indented
        value = text[dash.end() : stop].rstrip()
        if value and not NESTED_KEY.match(value):
            end = dash.end() + len(value)
            yield from _judged(text, dash.end(), end, kind, judged, name=name, short=short)
            name = name if auth_method(name, value) else ""  # after a user's name, a password
        at = stop + 1


def item_lines(text: str, at: int, column: int) -> Iterator[tuple[int, int]]:
    """Where the lines of the list whose first item's line begins at `at` begin (past their
    indentation) and end: its items' lines (a dash at `column`) and those more indented
    between them, up to BLOCK_LINES lines."""
    for line_at, begin, stop, value in lines_below(text, at):
        if begin - line_at < column or (begin - line_at == column and not ITEM.match(value)):
            return  # the list ended
        yield begin, stop


def lines_below(text: str, at: int) -> Iterator[tuple[int, int, int, str]]:
    """Of the lines from `at` on, at most BLOCK_LINES, those that are not blank: where each
    begins, where its text begins (past its indentation), where it ends, and its text."""
    for _ in range(BLOCK_LINES):
        if at >= len(text):
            return
        stop = text.find("\n", at)
        stop = len(text) if stop == -1 else stop
        line = text[at:stop]
        if value := line.strip():
            yield at, at + len(line) - len(line.lstrip()), stop, value
        at = stop + 1


def _judged(
    text: str,
    start: int,
    end: int,
    kind: str,
    judged: Judged,
    *,
    plain: bool = True,
    name: str = "",
    short: str = "",
) -> Iterator[Finding]:
    """`text[start:end]` when it looks secret (judged once by where it starts), or each value
    of the flow collection it is (`{value: x}`, `[x, y]`) that does; `plain`: a value not in
    a block, whose comment is no part of it; not a method's name given to `auth`
    (assignments.auth_method: `auth: [AWS4-HMAC-SHA256]` was refused), but for an item after
    one that is none, a user's name (`basic_auth: [admin, Mango-Tiger-17]` was let through);
    `short`: the key's name when a short password is read as on the key's line (a scalar of
    its own below the key, an item of a list or of a flow sequence: `passwords: [hunter2]`
    was let through), the entries of a flow mapping having keys of their own."""
    value = COMMENT.sub("", text[start:end], count=1) if plain else text[start:end]
    end = start + len(value)
    if plain and value.startswith("{{") and value.endswith("}}"):
        return  # a template's expression (Ansible's Jinja, Helm's): it names a value, holds none
    if plain and value[:1] in "{[" and value[-1:] in "}]":
        sequence = short if value[0] == "[" else ""
        for entry in FLOW_ENTRY.finditer(text, start + 1, end - 1):
            scalar = entry.group(1).rstrip()
            if scalar:
                at = entry.start(1)
                keyed = text.find(":", entry.start(), at) != -1  # `[user: x]`: a mapping's
                given = "" if keyed else sequence
                yield from _judged(text, at, at + len(scalar), kind, judged, name=name, short=given)
                name = name if auth_method(name, scalar) else ""  # `[admin, Mango-Tiger-17]`
        return
    if (start, end) in judged.shown:
        return  # found below a key above: nothing to add
    verdict = judged.verdicts.get((start, end, name, short))
    if verdict is None:
        verdict = judged.verdicts[start, end, name, short] = _secret(
            value, start, judged, name=name, short=short
        )
    if verdict:
        judged.shown.add((start, end))
        yield Finding(start, end, kind)


def _secret(value: str, start: int, judged: Judged, *, name: str, short: str) -> bool:
    """Whether `value`, a scalar at `start` below `name`'s key, is a secret (see _judged)."""
    if " " in value or auth_method(name, value) or is_test_verdict(name, value):
        return False  # a method's name given to `auth`, a test's to `pass`
    # a password's own key's value is a passphrase, not a thing's name (`password:` over
    # `  aws-iam-identity-center`): judged once by where it starts and how, whatever the key
    # (a block's `secret: |` over `  password:` over `    hunter2` decided for both keys)
    names = not password_named(name)
    secret = judged.secret.get((start, names))
    if secret is None:
        secret = judged.secret[start, names] = looks_secret(value, library.entropy(), names=names)
    # `password: |` over `hunter2`: short, by its key
    return secret or (
        short != "" and len(value) <= SHORT_LONGEST and short_below(one_of(short), value)
    )


SHORT_LONGEST = 14  # short.short_below's longest: 12 digits in their quotes


PLURALS = ("passwords", "passwds", "pwds", "passphrases")  # a list's key names its items


def one_of(name: str) -> str:
    """A plural password's name as one password's (`passwords:` over `  - hunter2`)."""
    return name[:-1] if name.lower().endswith(PLURALS) else name
