"""memidx's own secret patterns, for kinds detect-secrets lacks, and the pure steps around
every detector: which assigned values look like secrets, private spans, allow markers,
merging overlapping findings and writing `[REDACTED:<kind>]` in their place."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from memidx.frozen import Value
from memidx.private import PRIVATE_KIND, PRIVATE_STAND_IN, private_ranges
from memidx.secrets.calls import password_call
from memidx.secrets.identifiers import condition, names_a_secret
from memidx.secrets.members import MEMBER, named_member
from memidx.secrets.templates import literal_parts
from memidx.secrets.weak import common_password

# Kinds detect-secrets 1.5.0 has no plugin for (each has a test in tests/unit/test_secrets.py).
OWN_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("anthropic-key", re.compile(r"sk-ant-[a-z]+\d*-[A-Za-z0-9_-]{32,}")),
    # OpenAI's project, service-account and admin keys (the library knows only T3BlbkFJ ones)
    ("openai-key", re.compile(r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}")),
    ("github-token", re.compile(r"github_pat_[A-Za-z0-9_]{60,}")),  # fine-grained
    ("google-api-key", re.compile(r"AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])")),
    ("huggingface-token", re.compile(r"hf_[A-Za-z0-9]{34,}(?![A-Za-z0-9])")),
    ("npm-token", re.compile(r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])")),
    ("digitalocean-token", re.compile(r"do[por]_v1_[a-f0-9]{64}(?![a-f0-9])")),
    ("stripe-key", re.compile(r"(?:sk|rk)_(?:live|test)_[0-9a-zA-Z]{24,}|whsec_[0-9a-zA-Z]{32,}")),
    ("slack-token", re.compile(r"xapp-\d-[A-Z0-9]+-\d+-[a-f0-9]{32,}")),  # app-level token
    # a private key block in base64, as kubeconfig's `client-key-data:` holds one (its BEGIN
    # line's first bytes in base64: RSA, EC, PKCS#8, OpenSSH, encrypted PKCS#8, DSA)
    (
        "private-key",
        re.compile(
            r"LS0tLS1CRUdJTiB(?:SU0EgUFJJVkFURSBLRVkt|FQyBQUklWQVRFIEtFWS0t|QUklWQVRFIEtFWS0t"
            r"|PUEVOU1NIIFBSSVZBVEUgS0VZLS0t|FTkNSWVBURUQgUFJJVkFURSBLRVkt|EU0EgUFJJVkFURSBLRVkt)"
            r"[A-Za-z0-9+/]{40,}={0,2}"
        ),
    ),
)
OWN_BLOCKS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # the whole block, not only its BEGIN line; a block cut short runs to a blank line, but
    # the one that ends its headers (`Proc-Type:`, `DEK-Info:`; PGP armor has one always)
    (
        "private-key",
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[ \t]*\r?\n(?:[A-Za-z][\w-]*:[^\n]*\n)*[ \t]*\r?(?=\n))?"
            r"[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\n[ \t]*\n|\Z)"
            # the SSH2 (RFC 4716) form, `---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----`
            r"|---- BEGIN [A-Z0-9 ]*PRIVATE KEY ----"
            r"[\s\S]*?(?:---- END [A-Z0-9 ]*PRIVATE KEY ----|\n[ \t]*\n|\Z)"
            # a PuTTY key file: its header to its MAC (the key is in its Private-Lines)
            r"|PuTTY-User-Key-File-\d+:[\s\S]*?(?:Private-MAC:[^\n]*|\n[ \t]*\n|\Z)"
        ),
    ),
)
BLOCK_MARKS = ("PRIVATE KEY", "PuTTY-User-Key-File")  # a text naming none has no key block
# `Authorization: Bearer <token>`: the token, when it looks random (checked like a value)
BEARER = re.compile(r"(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{16,}=*)")
# `Authorization: Basic <base64 of user:password>`: a password, as in a URL
BASIC = re.compile(r"(?i)\bbasic\s+([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])")
ALLOW_MARKERS = ("memidx: allow-secret", "pragma: allowlist secret")
PLACEHOLDER_WORDS = re.compile(
    r"(?i)^(?:x+|\*+|\.+|-+|changeme|change[_-]?me|pass(?:word)?\d*|passwd|pwd|secret|example\w*|sample\w*|"
    r"dummy\w*|placeholder\w*|redacted|none|null|true|false|undefined|todo|tbd|fixme|"
    r"your[\w-]*|my[_-]?(?:password|secret|token|key)\w*|[\w-]*[_-]here|test(?:ing)?)$"
)
# A note's span as the index holds it (PRIVATE_STAND_IN, shown as `[REDACTED:private]`) is a
# reference, as that marker is by its brackets: read as a URL's password, a hit's snippet showed
# `postgres[REDACTED:basic-auth]db` for `postgres://app:<private>pw</private>@db`. Only a value
# that is nothing else: one holding a `␡` among other characters is a password that has it.
# An Android resource (`@string/maps_key`, `@android:string/ok`) names the value it stands for.
# A parenthesis makes a reference of a call (`os.getenv("X")`, `env::var(X)`, `getpass()`, or its
# start: `Password.create(`) or of a value in parentheses, not a password's (`P@ss(w0rd)`).
REFERENCE = re.compile(
    r"[\[\]{}<>]|^[A-Za-z_$][\w.:$-]*+\(|^\("
    r"|\$\{|^\$|%[sd(]|^(?:/|\./|~|https?:)"
    + r"|^[A-Za-z]:\\(?:[\w .-]+\\)*[\w .-]+$"  # a Windows path, `C:\secrets\pw.txt`
    + f"|^(?:{PRIVATE_STAND_IN}\ufe0e?)+$"
    + r"|^@(?:\w+:)?(?:string|xml|raw|array|integer|bool|dimen|color|drawable|id)/[\w.]+$"
)
# A password in a URL (`scheme://user:password@host`, `redis://:password@host` with no user,
# which the library's pattern needs; group 1 the user, 2 the password), whatever it holds: the
# library's pattern skips passwords with RFC 3986 delimiters (`!`, `#`, `+`...), which pasted
# connection strings often have unencoded. It is tried only where a run of scheme characters
# starts (the scheme is the run's first letter on): tried at every letter, a long run of them
# (a blob in a tool's output) cost time quadratic in its length, minutes for 1 MB, in C,
# where no hook's deadline can stop it.
URL_PASSWORD = re.compile(
    r"(?<![A-Za-z0-9+.-])[0-9+.-]*[A-Za-z][A-Za-z0-9+.-]*://([^\s:/@]*):([^\s@/]+)@"
)
PORT = re.compile(r"[0-9]{1,5}")
HOST_WITH_PORT = re.compile(r"(?:\[[^\]\s/@]*\]|[^\s:/@?#\[\]]+):[0-9]")  # `@cache:6379`


def port_not_password(user: str, password: str, host: str) -> bool:
    """Whether a URL's `:password@` with no user is a port (`http://:8080@proxy`, a mistyped
    `host:port`): a password needs a user, or more than a port's digits (`redis://:pw@host`),
    or a host that names its own port (`redis://:12345@cache:6379`); `host` is what follows
    the `@`."""
    if user or PORT.fullmatch(password) is None or int(password) > 65535:
        return False
    return HOST_WITH_PORT.match(host) is None


class Finding(Value):
    """A secret's place in a text and what kind it is."""

    start: int
    end: int
    kind: str


# The entropy a value needs, by how many kinds of characters it mixes: the library measures it
# over the base64 alphabet, so each sign lowers it, and `P@ss(w0rd)` (2.1), a password of all
# four kinds, was let through; a value of two or three kinds needs 2.5.
ENOUGH_ENTROPY = (0.0, 0.0, 2.5, 2.5, 2.0)
# One word, a capital and small letters (`Passwort`, `Kennwort`, `Tokenizer`): 46 of the 926
# values found in 20,000 code and config files on a developer's machine, none a secret (two
# words, `SuperSecret`, still count)
CALLED = re.compile(r"[+*/=,!&|][A-Za-z_][\w.]*+\(")  # a call after an operator: code
DOT_PATH = re.compile(r"\.[\w.-]*+/")  # a path from a hidden folder, or `../`
WORD_ALONE = re.compile(r"[^\W\d_][^\W\d_A-Z]++")
# PowerShell's cmdlet, a verb of its list and a noun (`$pw = ConvertTo-SecureString $env:X`)
CMDLET = re.compile(
    r"(?:Get|Set|New|Read|Convert(?:To|From)|Import|Export|Invoke|Add|Remove|Test|Unprotect"
    r"|Protect|Select|Write|Out|Resolve)-(?:[A-Z][a-z]++|[A-Z]{2,4}+(?![a-z]))++"
)
# a locale's name with its encoding or variant (`en_US.UTF-8`, `de_DE@euro`, `C.UTF-8`): a
# call's string (`TokenStr("en_US.UTF-8")`) or a setting, judged and refused as a secret. Its
# variant is one of glibc's few: any word after `@` let `de_DE@hunter` through
LOCALE = re.compile(
    r"(?:[a-z]{2,3}_[A-Z]{2}|C|POSIX)(?:\.(?i:utf-?8|iso-?8859-[0-9]{1,2}|euc-[a-z]{2}|gbk"
    r"|gb18030|big5|cp[0-9]{3,4}|koi8-[ru]))?+(?:@(?:euro|latin|cyrillic|valencia|devanagari"
    r"|iqtelif|saaho|abegede|shaw|quot|hebrew|ije))?+"
)


def looks_secret(value: str, entropy: Callable[[str], float]) -> bool:
    """Whether a value assigned to a secret-sounding name is one: long enough, no
    placeholder (`<your-token-here>`, `${TOKEN}`, `changeme`, `xxxx`), no reference to
    something else (`os.environ[...]`, `settings.password`, a path), mixed characters and
    enough entropy (ENOUGH_ENTROPY), no variable's name."""
    if DOT_PATH.match(value.lstrip("\"'`")):
        return False  # `.venv/bin/python`: its `.` taken off, it was judged as no path
    # one of the commonest passwords with a sign or digits, judged as written: `letmein.` was
    # let through, its `.` taken off with `:` (a label's `Password:`) and the word left alone
    written, value = value.strip("\"'`,;"), value.strip("\"'`,;.:")
    weak = len(written) >= 8 and common_password(written) and not written.startswith("@")
    if (len(value) < 8 and not weak) or value.startswith("[REDACTED:"):
        return False
    if PLACEHOLDER_WORDS.match(value) or names_a_secret(value) or condition(value):
        return False
    if referred(value):  # but for what is written beside a template's reference, `${X}v4lue`
        parts = literal_parts(value)
        return parts is not None and any(looks_secret(part, entropy) for part in parts)
    if weak:
        return True  # `!letmein`, `-letmein`: too little entropy, but the commonest
    if WORD_ALONE.fullmatch(value) or LOCALE.fullmatch(value) or CMDLET.fullmatch(value):
        return False  # a capitalised word (`Passwort` of a translation file, `Credentials`)
    classes = character_classes(value)
    return classes >= 2 and len(set(value)) >= 5 and entropy(value) >= ENOUGH_ENTROPY[classes]


OPENERS = {"}": "{", "]": "[", ")": "("}
AFTER_CLOSE = ".!?"  # after a collection's or a parenthesis's close: a sentence's end
AROUND = "\"'`,;"  # the quotes and separators around a value


def assigned_value(raw: str) -> str:
    """A value a keyword rule read, without the quotes and separators around it, nor the
    brackets it ends with that close a flow collection or a parenthesis it sits in
    (`{api_key: v4lue}`, `(password: v4lue)`, its value read as `v4lue}`, `v4lue)`, was a
    reference by its bracket; `${TOKEN}` closes its own), nor a sentence's end after them.
    Each character is looked at once: a bracket taken off at a time, the rest counted again
    each time, took 13 s for `token=Zk9` and 100 KB of `}`."""
    value = raw.strip(AROUND)
    opened = {closer: value.count(opener) for closer, opener in OPENERS.items()}
    closed = {closer: value.count(closer) for closer in OPENERS}
    end = len(value)
    while True:
        cut = end
        while cut and value[cut - 1] in AFTER_CLOSE:
            cut -= 1
        last = value[cut - 1 : cut]
        if last not in OPENERS or closed[last] <= opened[last]:
            return value[:end]
        closed[last] -= 1
        end = cut - 1
        while end and value[end - 1] in AROUND:
            end -= 1


def real_password(value: str) -> bool:
    """Whether a password found in a URL, a command line or a `.netrc` entry is one: not a
    placeholder (`<PASSWORD>`, `password`, `changeme`) nor a reference (`${DB_PASSWORD}`),
    whichever detector found it."""
    return not PLACEHOLDER_WORDS.match(value) and not referred(value)


def referred(value: str) -> bool:
    """Whether `value` is a reference (REFERENCE), or code: a call after an operator
    (`n+len(tokens)`) or a `)` no `(` in it opened (a signature's `ParseResults):`); not a
    password shaped as a call (memidx.secrets.calls)."""
    if password_call(value):
        return False
    if MEMBER.fullmatch(value):
        return named_member(value)
    return bool(REFERENCE.search(value) or CALLED.search(value)) or (
        value.count(")") > value.count("(")
    )


def url_password(found: str) -> str:
    """The password of what the library's basic-auth pattern matched: `://user:password@`
    whole when the password is shorter than 8 characters, else the password alone."""
    if found.startswith("://") and found.endswith("@"):
        return found[3:-1].partition(":")[2]
    return found


def character_classes(value: str) -> int:
    """How many of lower case, upper case, digits and symbols `value` mixes (0 to 4)."""
    tests = (str.islower, str.isupper, str.isdigit, _symbol)
    return sum(any(test(c) for c in value) for test in tests)


def _symbol(char: str) -> bool:
    return not char.isalnum()


def private_spans(text: str) -> list[Finding]:
    """`<private>…</private>` spans, tags included, as findings (memidx.private finds them)."""
    return [Finding(start, end, PRIVATE_KIND) for start, end in private_ranges(text)]


def own_findings(text: str, *, blocks: bool = False) -> Iterable[Finding]:
    """memidx's own patterns: the token ones, or (`blocks`) the private key blocks."""
    for kind, pattern in OWN_BLOCKS if blocks else OWN_PATTERNS:
        for match in pattern.finditer(text):
            if match.start() and (
                text[match.start() - 1].isalnum() or (not blocks and text[match.start() - 1] == "_")
            ):
                continue  # inside a longer word
            yield Finding(match.start(), match.end(), kind)


def merged(findings: Iterable[Finding]) -> list[Finding]:
    """Findings in order, overlapping ones joined (the first one's kind stays)."""
    out: list[Finding] = []
    for found in sorted(findings, key=lambda f: (f.start, -f.end)):
        if out and found.start < out[-1].end:
            last = out[-1]
            out[-1] = Finding(last.start, max(last.end, found.end), last.kind)
        else:
            out.append(found)
    return out


def allowed_lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of the lines that carry an allow marker."""
    spans: list[tuple[int, int]] = []
    for marker in ALLOW_MARKERS:
        at = text.find(marker)
        while at != -1:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            spans.append((start, len(text) if end == -1 else end))
            at = text.find(marker, at + 1)
    return spans


def outside(findings: Sequence[Finding], spans: Sequence[tuple[int, int]]) -> list[Finding]:
    """The findings that stand on none of the spans (lines with an allow marker)."""
    return [f for f in findings if not any(s <= f.start < e for s, e in spans)]


def redact(text: str, findings: Sequence[Finding]) -> str:
    """The text with each (merged, ordered) finding replaced by `[REDACTED:<kind>]`."""
    pieces: list[str] = []
    cursor = 0
    for found in findings:
        pieces.append(text[cursor : found.start])
        pieces.append(f"[REDACTED:{found.kind}]")
        cursor = found.end
    pieces.append(text[cursor:])
    return "".join(pieces)


def line_of(text: str, offset: int) -> int:
    """The 1-based line of an offset."""
    return text.count("\n", 0, offset) + 1
