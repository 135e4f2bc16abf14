"""The values assigned to the names memidx adds to the library's list (`GITHUB_TOKEN=...`,
`credentials: ...`), and for every secret-sounding name the values the library's rules skip:
those starting with a sign, those after a space and a `:` (`{ password : v4lue }`), the
strings it is called with and the items of a list it is given (pure): each is judged as
every assigned value is."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from memidx.secrets.held import held_values
from memidx.secrets.identifiers import SECRET_WORDS, WORD
from memidx.secrets.linear import next_name

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
# the same within a run read once as no value (see SIGN_LED_LONG): at most 200 characters,
# to the run's end or an `&` (a query string's next pair, `&password=`, cut off by _cut)
VALUE_IN_RUN = re.compile(r"\s*[\"'`]?([^\s\"'`,;]{1,200})(?![^\s\"'`,;&])")
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
# Capitals only before a small letter (`PasswordInput.tsx`, `OAuth2Client`), or capitals
# alone (`README`); a package's version after its name (`@azure/keyvault-secrets@4.7.0`), a
# dot in it (a year after a word, `@Acme/Summer@2024`, is a password's), or a major one after
# a name in small letters, as npm's are (`@types/node@20`, refused when a dot was needed)
SEGMENT = re.compile(
    r"[a-z0-9._-]++@[0-9]{1,3}+|(?:[A-Z]++[a-z]|[a-z0-9._-])*+(?:@[0-9]++\.[\w.+-]*+)?+|[A-Z._-]++"
)
# A name's run of letters between two of digits (`zq8xq2`, `x7k2m`): a random string's, no
# word's; a word holds one run of digits (`client-s3`, `ed25519`, `oauth2client`, `k8s`)
MIXED = re.compile(r"[0-9][A-Za-z]++[0-9]")
PATH_SIGNS = "@+#:\\"  # what leads a path: a package (`@azure/x`), a refspec, a fragment
NAMED = re.compile(r"[A-Za-z]")
SLASH = re.compile("/")
SLASHES = re.compile(r"[/\\]")  # a share's path (`\\host\share\pw`) splits on either
# Words joined by `_` or `-`, or by case from a small letter on (`signupPasswordInput`), as
# identifiers.py reads a variable's name, each word's digits at its end (`Panel2`);
# `#hunter2secret`, `#MySecret2024`, `#secret-Zk9qW2vLp8Rt7` stay passwords.
FIELD = re.compile(
    r"[a-z]++[0-9]*+(?:[_-](?:[a-z]++[0-9]*+|[A-Z][a-z]++[0-9]*+|[0-9]++)|[A-Z][a-z]++[0-9]*+)++"
    r"|[A-Z][A-Z0-9]*+(?:[_-][A-Z0-9]++)++"
)
SIGNS = "!#&+?@|=:;,\\"
# an element's id as CSS selects it, words joined by `-` or `_` (`#login-form`), given to a
# name whose last word names an element of a page (`password_input`): refused as a password
# before. A name ending in another word holds the secret (`password_new`, `secret_text`);
# a plural too (`password_modal`, `passwordTextbox`, `password_inputs` were refused). Not
# `list`: `password_list` holds passwords (`"#blue-sky7"` was let through).
SELECTOR = re.compile(r"#[a-z]++[0-9]*+(?:[_-][a-z]++[0-9]*+)++")
ELEMENTS = frozenset(
    {"input", "field", "el", "elem", "element", "selector", "sel", "form", "button", "btn",
     "box", "container", "label", "node", "id", "ref", "target", "wrapper", "toggle", "icon",
     "modal", "dialog", "popup", "overlay", "div", "span", "textbox", "textarea", "section",
     "tab", "row", "group", "panel", "card", "link", "anchor", "item", "view", "widget", "area",
     "control", "page", "screen", "menu", "toast", "alert", "hint", "help", "error", "msg",
     "message", "tooltip", "submit", "checkbox", "dropdown", "meter", "indicator"}
)  # fmt: skip
# The same value unquoted (`PASSWORD=!Zq8...` in a `.env` file; group 1), but for a comment
# (`#` after a space). After `:` YAML's signs lead no value: an alias (`*`, no sign here), a
# block (`|`), and an anchor or a tag (`&default`, `!vault`, `!Ref Db`) when a value follows
# it on its line or its name has YAML_NAME's shape; nor does a scope's `::`
# (`AWS::SecretsManager::RotationSchedule`). Not `;` nor `,`, which end a shell's or a
# list's value. Read to the end of its run after every name, `password:!password:!...` took
# 20 s for 100 KB: a run over 200 characters (SIGN_LED_LONG, a value as any other: missed, a
# 300-character `PASSWORD=!<token>` went through) is read once: when it is no value, the
# names in it are read again only as they were before, up to 200 characters each
# (`token=!token=!...` took 30 s for 100 KB so; skipping the run's names instead let
# `url=https://<200 characters>&GITHUB_TOKEN=v4lue` through).
SIGN_LED_BARE = re.compile(r"[ \t]*+([!#&+?@|=:\\][^\s\"'`]{0,200}+)(?![^\s\"'`])")
SIGN_LED_LONG = re.compile(r"[ \t]*+([!#&+?@|=:\\][^\s\"'`]{200}[^\s\"'`]++)")
SIGN_LED_IN_RUN = re.compile(r"[ \t]*+([!#&+?@|=:\\][^\s\"'`]{0,200})(?![^\s\"'`,;&])")
# an anchor's or a tag's name: letters, `_`, `.`, `-`, `:`, `/` (`!!binary`, `&db_defaults`,
# `!GetAtt`), or PyYAML's `&id001`; a password has digits (`!Welcome2024`, `&hunter22`,
# `!Zq8vT2mW9pL`): 8,547 YAML files on a developer's machine hold 23 names of anchors alone
# after a key, none with a digit but `&id001`
YAML_NAME = re.compile(r"!?[A-Za-z_][A-Za-z_.:/-]*+|id[0-9]++")
TAGGED = re.compile(r"[ \t]++[^\s#]")  # a value after an anchor or a tag, on its line
YAML_NO_VALUE = re.compile(r"[ \t]*+[|:]")  # a block scalar's `|` or a second `:`: none
# a quoted string after a tag that keeps a literal (CloudFormation's `!Sub 'v4lue'`,
# `!Base64`, Ansible's `!unsafe`) is the key's value, let through as the tag's before; other
# tags are given a name (`!Ref 'DbSecret'`, `!ImportValue`, Home Assistant's `!secret db_pw`)
LITERAL_TAGS = frozenset({"!Sub", "!Base64", "!unsafe", "!str"})
TAG_LITERAL = re.compile(r"[ \t]++[\"']?+([^\s\"']++)[\"']?+(?=[ \t]*+(?:#|$))")
# an anchor, or a tag that keeps its value as written: the value after it is the key's
# (`password: &pw Zq8vT2mW9pL`), both in either order (`!!str &pw v4lue` was let through);
# after another tag (`!Ref DbSecret`) it is the tag's. A sign after them is read as after the
# key (`&pw !Zq8vT2mW9pL` was let through as an anchor before a tag; `&pw !vault |` is one)
ANCHORED = re.compile(r"(?:(?:&[^\s\"'`]{1,200}+|!!str)[ \t]++)++(?=[^\s#*|>])")
# Code's negation of a variable, unquoted, given to a name of code, not all capitals, a space
# before its `=` (`isSecret = !isPublic`, `hasToken = !!user.token;`): words joined as code
# joins them, from a small letter on, digits at their ends; each was refused. A `.env` file's
# `PASSWORD=!hunter22`, a `.properties` file's `db.password=!secretpass`, `!Welcome2024` and
# `!hunter22x` are passwords.
IDENT = r"_?[a-z]++[0-9]*+(?:_[a-z]++[0-9]*+|[A-Z][a-z]++[0-9]*+)*+(?:\(\))?+"
# a member may be a constant's name (`!!process.env.CI`, refused), no digits in it
# (`password = !admin.ADMIN2024` was let through as a negation)
NEGATION = re.compile(rf"!!?+{IDENT}(?:\.(?:{IDENT}|[A-Z][A-Z_]*+))*+[;,)]*+")
SPACED = re.compile(r"[ \t](?::=|=)")
# A flag's name is negated, not a holder's: a secret's word last and no flag's word first
# (`password`, `db_password`, `apiKey`; a verb first is a flag's, `maskPassword = !unmasked`
# was refused) names what holds a secret, and `password = !hunter2`,
# an INI file's or my.cnf's, was let through as the negation of a variable `hunter2`. Given
# a holder, only code's shapes are a negation: a member, a call, `!!`, a `;` (HOLDER_CODE:
# `secretKey = !options.insecure;`), or a flag's name (`apiKey = !isProduction ? a : b`); not
# one word (`!hunter2`) nor words joined by case (`userPassword=!hunterTwo9` was let through).
# `store` is no flag's verb: `storePassword` is Android's keystore password (`!dragonfly` passed)
FLAG_FIRST = frozenset(
    {"is", "has", "have", "can", "should", "must", "needs", "need", "was", "did", "does",
     "will", "use", "show", "hide", "no", "allow", "require", "requires", "mask", "unmask",
     "reveal", "remember", "save", "reset", "enable", "disable", "skip", "validate",
     "encrypt", "prompt", "ask", "force", "rotate", "cache", "keep", "toggle", "want", "wants"}
)  # fmt: skip
HOLDER_CODE = re.compile(r"^!!|[.;,)]")
# a word and digits negated is a password (`password = !hunter22`): a variable so named
# (`!found2`) is short; without spaces around `=` (`isSecret=!isPublic`) code's names on both
# sides, with a hump or a dot, tell negation from a config file's `db.password=!secretpass`
WORD_DIGITS = re.compile(r"!!?+[a-z]++[0-9]++[;,)]*+")
HUMP = re.compile(r"[a-z0-9][A-Z]")
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


# A person's password (`password`, `passwd`, `pw`...) is no package's name: given one, a name
# ending in digits after letters or a version without a dot (`@hunter/hunter2`,
# `@admin/admin@123`) is a password's, as a word and digits is anywhere (both let through)
PERSONAL = frozenset({"password", "passwords", "passwd", "pwd", "pw", "pass", "passphrase"})
PERSONAL_SHAPE = re.compile(r"[A-Za-z]++[0-9]++|[\w.-]*+@[0-9]++")


def personal(name: str) -> bool:
    """Whether `name`'s last word names a person's password (PERSONAL)."""
    return (WORD.findall(name)[-1:] or [""])[0].lower() in PERSONAL


def no_password(rest: str, *, person: bool = False) -> bool:
    """Whether a sign-led value is a path, an entity, a filter or a field's name; a path of
    PERSONAL_SHAPE's names none when given to a person's password (`person`)."""
    # a share's path, `\\host\share\pw`, on backslashes too; elsewhere a backslash is a
    # password's sign (`@hunter2\secret9`, `!zq8xq2\abcdef` were let through as paths)
    names = (SLASHES if rest.startswith("\\\\") else SLASH).split(rest.lstrip(SIGNS))
    # two names at least with a letter: `!Passw0rd/2024` is no path; nor is one led by `!`,
    # `&`, `=`, `|` or `?`, which lead none (`!Zq8/abcdef`), nor a random name (`@zq8xq2/ab`)
    if (
        rest[:1] in PATH_SIGNS
        and sum(NAMED.search(name) is not None for name in names) >= 2
        and all(SEGMENT.fullmatch(name) and not MIXED.search(name) for name in names)
        and not (person and any(PERSONAL_SHAPE.fullmatch(name) for name in names))
    ):
        return True
    return NO_PASSWORD.search(rest) is not None or _names_a_field(rest)


def extra_keyword_values(line: str, secret_word: Callable[[str], bool]) -> Iterator[str]:
    """The values assigned to the names EXTRA_WORDS makes secret-sounding, and the values
    starting with a sign (SIGN_LED, SIGN_LED_BARE) given to any secret-sounding name, in
    order; then the strings and items held_values reads."""
    match, long_until = EXTRA_ASSIGNED.search(line), 0
    while match:
        start, end = match.span(1)
        last = line.rfind(".", start, end) + 1 or start  # the word is after the name's last dot
        name, value = line[last:end], None
        if EXTRA_WORDS.search(line, last, end):
            # `:=` or `=>` with no value after it is `:` or `=` with one that starts `=`, `>`
            reading = VALUE if match.end() >= long_until else VALUE_IN_RUN
            value = reading.match(line, match.end())
            if value is None and line[match.end() - 2 : match.end()] in (":=", "=>"):
                value = reading.match(line, match.end() - 1)
            value, long_until = _cut(line, value, secret_word, long_until)
        elif secret_word(name):
            if line[match.end() - 1] == ":" and line[match.end() - 2].isspace():
                value = VALUE.match(line, match.end())  # `{ password : v4lue }`
            else:
                at = match.end()
                value = SIGN_LED.match(line, at) or _bare_sign_led(line, at, at >= long_until)
            value, long_until = _cut(line, value, secret_word, long_until)
            person = personal(name)  # a person's password names no package (PERSONAL)
            if value and (no_password(value[1], person=person) or _selector(name, value[1])):
                long_until, value = (
                    max(long_until, value.end()),
                    None,
                )  # its run is read once (SIGN_LED_LONG)
        # a sign-led path, entity, filter or field's name, or code's negation, after any
        # secret-sounding name (`token: "@octokit/auth-token"` was refused where
        # `secret: "@azure/identity"` was not)
        led = value is not None and value[1][0] in SIGNS
        if (
            led
            and value
            and (no_password(value[1], person=personal(name)) or _negation(line, start, end, value))
        ):
            long_until, value = max(long_until, value.end()), None
        if value:
            yield value.group(1)
            match = EXTRA_ASSIGNED.search(line, value.end())
        else:  # what the old expression took for a value may hold a name
            match = EXTRA_ASSIGNED.search(line, end)
    yield from held_values(line, secret_word)


def _cut(
    line: str, value: re.Match[str] | None, secret_word: Callable[[str], bool], until: int
) -> tuple[re.Match[str] | None, int]:
    """An unquoted value read again up to where a secret-sounding name is given a value after
    a `,`, `;` or `&` (next_name), as the library's values are: `token=!a&password=!Zq8...`
    was judged as one value, `password=&lt;&token=!Zq8...` as an entity, and let through.
    Its run is then read once (`until`: the values after the cut are read within the run)."""
    if value is None or not value[1] or line[value.start(1) - 1] in "\"'`":
        return value, until
    cut = next_name(line, value.start(1) + 1, value.end(1), secret_word)
    if cut is None:
        return value, until
    again = SIGN_LED_BARE if value.re is SIGN_LED_LONG else value.re
    return again.match(line, value.pos, cut), max(until, value.end())


def _selector(name: str, value: str) -> bool:
    """Whether a `#`-led value is a CSS selector (SELECTOR) given to the name of an element
    (ELEMENTS: `password_input = "#login-form"`)."""
    last = WORD.findall(name)[-1:] or [""]
    part = last[0].lower() in ELEMENTS or last[0].lower().removesuffix("s") in ELEMENTS
    return part and bool(SELECTOR.fullmatch(value))


def _negation(line: str, start: int, end: int, value: re.Match[str]) -> bool:
    """Whether an unquoted sign-led value given to the name line[start:end] is code's
    negation of a variable (NEGATION) given to a flag (FLAG_FIRST), not a word and digits
    (WORD_DIGITS)."""
    named = line[start : value.start()]
    if named.upper() == named or line[value.start(1) - 1] in "\"'`":
        return False  # `PASSWORD=!v4lue`: a config file's
    if SPACED.search(named) is None and not (
        HUMP.search(named) and (HUMP.search(value[1]) or "." in value[1])
    ):
        return False  # `db.password=!v4lue`: a config file's
    words = [w.lower() for w in WORD.findall(line[start:end].rpartition(".")[2])]
    holder = words and words[-1] in SECRET_WORDS and words[0] not in FLAG_FIRST
    first = (WORD.findall(value[1]) or [""])[0].lower()
    if holder and not HOLDER_CODE.search(value[1]) and first not in FLAG_FIRST:
        return False  # `password = !hunter2`: a holder's name (FLAG_FIRST) given a word
    return NEGATION.fullmatch(value[1]) is not None and WORD_DIGITS.fullmatch(value[1]) is None


def _bare_sign_led(line: str, at: int, long: bool = True) -> re.Match[str] | None:
    """The unquoted value starting with a sign after the assignment that ends at `at` (group
    1), unless it is a comment or YAML reads its sign as no value's (see SIGN_LED_BARE); one
    over 200 characters only when `long`."""
    if line[at - 1] == ":" and YAML_NO_VALUE.match(line, at):
        return None  # before SIGN_LED_LONG reads the run: `password:|` repeated, quadratic
    rest = SIGN_LED_LONG if long else SIGN_LED_IN_RUN
    bare = SIGN_LED_BARE.match(line, at) or rest.match(line, at)
    if bare is None or (bare[1][0] == "#" and bare.start(1) > at):
        return None  # `PASSWORD= # a comment`
    if line[at - 1] != ":" or bare[1][0] not in "|!&:":
        return bare
    if anchored := ANCHORED.match(line, bare.start(1)):
        after = SIGN_LED_BARE.match(line, anchored.end())
        if after is None or after[1][0] not in "!&":
            return VALUE.match(line, anchored.end())  # `&pw v4lue`: the value after the anchor
        bare = after  # `&pw !Zq8vT2mW9pL`: judged as the sign after the key is
    if bare[1] in LITERAL_TAGS and (literal := TAG_LITERAL.match(line, bare.end())):
        return literal  # `!Sub 'v4lue'`: the string the tag is given
    if bare[1][0] in "|:" or YAML_NAME.fullmatch(bare[1], 1) or TAGGED.match(line, bare.end()):
        return None
    return bare
