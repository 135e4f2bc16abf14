"""Secrets XML names without an assignment sign (pure): an element whose name is
secret-sounding (`<password>v4lue</password>`, `<apiKey>`), one a `name` or `key` attribute
names so (`<entry key="db.password">v4lue</entry>`), and the `value` attribute of a tag named
so either way (.NET's `<add key="ApiKey" value="v4lue"/>`, Spring's `<property
name="password" value="v4lue"/>`, `<password value="v4lue"/>`, Android's `<meta-data
android:name="io.fabric.ApiKey" android:value="v4lue"/>`), and the `content` of HTML's
`<meta name="csrf-token" content="v4lue">`. The keyword rules, which read
`password: v4lue` and `password="v4lue"`, missed them. A value is judged as an assigned one
is: `${DB_PASS}`, `changeme`, `***` and an empty element pass."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from memidx.secrets.lazy_pattern import lazy
from memidx.secrets.patterns import Finding
from memidx.secrets.signs import SIGNS, no_password, personal

# A start tag: its name (group 1), attributes (group 2: each `name="..."`, `name='...'`, HTML's
# `name=...` unquoted (a `/` in it too, `data-url=/api/keys`, but for `/>`), JSX's `name={...}`,
# or HTML's `required` alone: any of them made the tag unread, and its value let through) and
# whether it closes itself (group 3). Tried at each `<`, read to the next `<` or `>`: linear.
_VALUE = r"(?:\"[^\"<>]*+\"|'[^'<>]*+'|\{[^{}<>]*+\}|(?:[^\s\"'=<>`{}/]|/(?!>))++)"
TAG = lazy(rf"<([A-Za-z_][\w.:-]*+)((?:\s++[\w.:-]++(?:\s*+=\s*+{_VALUE})?+)*+)\s*+(/?)>")
ATTRIBUTE = lazy(
    r"([\w.:-]+)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|(\{[^{}]*\})|((?:[^\s\"'=<>`{}/]|/(?!>))+)))?"
)
# What an element holds up to its closing tag (group 3): a run without spaces (group 2), or
# one in a CDATA section (group 1), alone between the tags or on a line of its own.
CONTENT = lazy(r"\s*+(?:<!\[CDATA\[\s*+([^\s\]<>]++)\s*+\]\]>|([^\s<>]++))\s*+</([\w.:-]++)\s*+>")
CLOSING = lazy(r"</([\w.:-]++)\s*+>")  # a closing tag and its name
WRAPPED_LINES = 64  # the lines of an element's text read as a value wrapped over them
# A literal part of each secret-sounding word (the library's list and memidx's: `api_?key`,
# `passwd`, `token`...): a tag holding none names no secret (tests/unit/test_secret_markup.py).
STEMS = ("pass", "pw", "auth", "secret", "key", "token", "credential", "bearer", "contrase")
# What a sign SIGN_LED reads no keyword's value after leads in an element's text that is no
# password: an option (`--password-stdin`), a variable (`%DB_PASSWORD%`, `$DB_PASS`), a
# version (`^1.2.3`), a glob (`*.pem`), a path (`./pw`, `~/.pgpass`, `.env`; Windows's too,
# `.\App_Data\pw.txt`, `%APPDATA%\app\pw.txt`, which a .NET config's `value` holds). Any value
# so led was let through: `<password>-Zq8vT2mW9pL</password>`, `.Zq8...`, `^Zq8...`, `*Zq8...`.
NOT_LED = lazy(
    r"--?+[a-z][a-z0-9]*+(?:-[a-z0-9]++)*+(?:=\S*+)?+|%[\w.-]++%(?:[/\\]\S*+)?+|\$\S*+"
    r"|[\^~][0-9][\w.+-]*+|\*++(?:[./][\w.*/-]*+)?+|\.{0,2}/\S*+|\.{1,2}\\\S*+|~/\S*+"
    r"|\.[a-z][\w.-]*+"
)
NAMING = ("name", "key")  # the attributes that name what an element or a `value` holds


Entropy = Callable[[str], float]
Words = Callable[[str], bool]


def markup_values(
    text: str, secret_word: Words, entropy: Callable[[], Entropy], kind: str
) -> Iterator[Finding]:
    """The values `text`'s XML gives secret-sounding names (see the module docstring) that
    look like secrets; `secret_word` tells a secret-sounding name, `entropy` gives the
    measure of one (loaded only when a value is judged)."""
    if "<" not in text:
        return
    for tag in TAG.finditer(text):
        lower = tag.group().lower()  # a word's stem in no name: no search (~8 us each)
        if not any(stem in lower for stem in STEMS):
            continue
        attributes = _attributes(text, *tag.span(2))
        named = _named(attributes, "", secret_word)
        named = named or secret_word(tag.group(1).rpartition(":")[2])  # `<db:password>`: `password`
        holder = "content" if tag.group(1).lower() == "meta" else "value"  # HTML's `<meta>`
        for key, (value, at) in attributes.items():
            prefix, colon, local = key.rpartition(":")  # `android:value` by `android:name`
            own = named or _named(attributes, prefix + colon, secret_word)
            names = _names(attributes, prefix + colon, tag.group(1))
            person = local == holder and own and any(map(personal, names))
            if local == holder and own and _secret(value, entropy, person=person, names=names):
                yield Finding(at, at + len(value), kind)
        if tag.group(3) or not named:
            continue  # `<add .../>` holds nothing
        held = CONTENT.match(text, tag.end())
        if held and held.group(3) == tag.group(1):
            group = 1 if held.group(1) is not None else 2
            local = tag.group(1).rpartition(":")[2]
            person = personal(local)  # `<password>@hunter/hunter2`
            from memidx.secrets.assignments import auth_method  # a named tag's content only

            if auth_method(local, held.group(group)):
                continue  # `<auth>scram-sha-256</auth>`: a method's name
            if _secret(held.group(group), entropy, person=person, names=[local]):
                yield Finding(held.start(group), held.end(group), kind)
        elif held is None:
            yield from _wrapped(text, tag.end(), tag.group(1), entropy, kind)


def _wrapped(
    text: str, at: int, name: str, entropy: Callable[[], Entropy], kind: str
) -> Iterator[Finding]:
    """The lines of an element's text from `at` to its closing tag, when they are one value
    wrapped over several lines (`<privateKey>` over lines of base64), each a run without
    spaces, that looks secret as a whole: each line. Text that holds a space is prose, and
    an element of more than WRAPPED_LINES lines is no value. Read to the next `<` only."""
    end = text.find("<", at)
    close = CLOSING.match(text, end) if end != -1 else None
    if close is None or close.group(1) != name:
        return
    lines = text[at:end].split("\n")
    values = [line.strip() for line in lines]
    if len(lines) > WRAPPED_LINES or any(" " in value for value in values):
        return
    if not _secret("".join(values), entropy):
        return
    for line, value in zip(lines, values, strict=True):
        if value:
            start = at + line.find(value)
            yield Finding(start, start + len(value), kind)
        at += len(line) + 1


def _named(attributes: dict[str, tuple[str, int]], prefix: str, secret_word: Words) -> bool:
    """Whether a `name` or `key` attribute (`prefix` before it: `android:`) is secret-sounding."""
    return any(secret_word(attributes[prefix + n][0]) for n in NAMING if prefix + n in attributes)


def _names(attributes: dict[str, tuple[str, int]], prefix: str, tag: str) -> list[str]:
    """The element's name and its `name` or `key` attribute's: a person's password's
    (`<add key="DbPassword" value="@hunter/hunter2"/>` was let through as a package's path)."""
    names = [attributes[prefix + n][0] for n in NAMING if prefix + n in attributes]
    return [tag.rpartition(":")[2], *names]


def _attributes(text: str, start: int, end: int) -> dict[str, tuple[str, int]]:
    """Each attribute of text[start:end], a start tag's, by its name in lower case: its
    value and where the value starts in `text`."""
    found: dict[str, tuple[str, int]] = {}
    for match in ATTRIBUTE.finditer(text, start, end):
        group = next((g for g in (2, 3, 4, 5) if match.group(g) is not None), 0)
        value = match.group(group) if group else ""  # `required`: no value
        found[match.group(1).lower()] = (value, match.start(group) if group else match.end())
    return found


def _secret(
    value: str, entropy: Callable[[], Entropy], *, person: bool = False, names: Sequence[str] = ()
) -> bool:
    """Whether an element's text or a `value` looks secret, judged as a keyword's value is:
    none starting with a sign the keyword rules read no value after (`-p`, `%DB_PASSWORD%`,
    `^1.2.3`), nor a path, an entity or a field's name after another (`@/lib/x`, `#id_pw1`);
    given to a password's own name of `names` (`<password>`), a passphrase, not a thing's
    name (`<password>aws-iam-identity-center</password>` was let through)."""
    from memidx.secrets.dashed_names import password_named  # a named value only
    from memidx.secrets.values import assigned_value, looks_secret

    value = assigned_value(value)
    if not value or NOT_LED.fullmatch(value):
        return False
    if value[0] in SIGNS and no_password(value, person=person):
        return False
    return looks_secret(value, entropy(), names=not any(map(password_named, names)))
