"""What a value that starts with a sign is when it is no password (pure): a path or a
package, an HTML entity, a filter, a field's name, or an element's id as CSS selects it given
to the name of an element of a page."""

from __future__ import annotations

from functools import lru_cache

from memidx.secrets.identifiers import SECRET_WORDS, WORD
from memidx.secrets.lazy_pattern import lazy

# What a sign leads in a developer's notes that is no password: a path or a package (`@/lib/x`,
# `@azure/identity`, `+refs/heads/x`: each name as code writes one, SEGMENT), an HTML entity
# (`&lt;your-password&gt;`) or a filter (`|trim`); and a field's name (FIELD, a secret's word
# among its words: `#id_password1`, a CSS selector; `:password`, a symbol; `@@DB_PASSWORD@@`;
# `!ENV:API_KEY`): each was refused. Read loosely (any `/`, any `&...;`, any run after a `-`),
# they let through base64 (`+wJalrXUtnFEMI/K7MDENG/...`) and `#secret-Zk9qW2vLp8Rt7`.
NO_PASSWORD = lazy(
    r"&(?:[A-Za-z][a-z]{1,7}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});|^\|[a-z_][a-z0-9_]*+$"
)
# Capitals only before a small letter (`PasswordInput.tsx`, `OAuth2Client`), or capitals
# alone (`README`); a package's version after its name (`@azure/keyvault-secrets@4.7.0`), a
# dot in it (a year after a word, `@Acme/Summer@2024`, is a password's), or a major one after
# a name in small letters, as npm's are (`@types/node@20`, refused when a dot was needed)
SEGMENT = lazy(
    r"[a-z0-9._-]++@[0-9]{1,3}+|(?:[A-Z]++[a-z]|[a-z0-9._-])*+(?:@[0-9]++\.[\w.+-]*+)?+|[A-Z._-]++"
)
# A name's run of letters between two of digits (`zq8xq2`, `x7k2m`): a random string's, no
# word's; a word holds one run of digits (`client-s3`, `ed25519`, `oauth2client`, `k8s`)
MIXED = lazy(r"[0-9][A-Za-z]++[0-9]")
PATH_SIGNS = "@+#:\\"  # what leads a path: a package (`@azure/x`), a refspec, a fragment
NAMED = lazy(r"[A-Za-z]")
SLASH = lazy("/")
SLASHES = lazy(r"[/\\]")  # a share's path (`\\host\share\pw`) splits on either
# Words joined by `_` or `-`, or by case from a small letter on (`signupPasswordInput`), as
# identifiers.py reads a variable's name, each word's digits at its end (`Panel2`);
# `#hunter2secret`, `#MySecret2024`, `#secret-Zk9qW2vLp8Rt7` stay passwords.
FIELD = lazy(
    r"[a-z]++[0-9]*+(?:[_-](?:[a-z]++[0-9]*+|[A-Z][a-z]++[0-9]*+|[0-9]++)|[A-Z][a-z]++[0-9]*+)++"
    r"|[A-Z][A-Z0-9]*+(?:[_-][A-Z0-9]++)++"
)
SIGNS = "!#&+?@|=:;,\\"
# an element's id as CSS selects it, words joined by `-` or `_` (`#login-form`), given to a
# name whose last word names an element of a page (`password_input`): refused as a password
# before. A name ending in another word holds the secret (`password_new`, `secret_text`);
# a plural too (`password_modal`, `passwordTextbox`, `password_inputs` were refused). Not
# `list`: `password_list` holds passwords (`"#blue-sky7"` was let through).
SELECTOR = lazy(r"#[a-z]++[0-9]*+(?:[_-][a-z]++[0-9]*+)++")
ELEMENTS = frozenset(
    {"input", "field", "el", "elem", "element", "selector", "sel", "form", "button", "btn",
     "box", "container", "label", "node", "id", "ref", "target", "wrapper", "toggle", "icon",
     "modal", "dialog", "popup", "overlay", "div", "span", "textbox", "textarea", "section",
     "tab", "row", "group", "panel", "card", "link", "anchor", "item", "view", "widget", "area",
     "control", "page", "screen", "menu", "toast", "alert", "hint", "help", "error", "msg",
     "message", "tooltip", "submit", "checkbox", "dropdown", "meter", "indicator"}
)  # fmt: skip
PARTS = lazy(r"[:;,=.]")


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
# `@admin/admin@123`) is a password's, as a word and digits is anywhere (both let through);
# not after a bundler's alias of the project's folder, `@/`, with no scope's name
# (`pwd: "@/projects/app2"` was refused)
PERSONAL = frozenset({"password", "passwords", "passwd", "pwd", "pw", "pass", "passphrase"})
PERSONAL_SHAPE = lazy(r"[A-Za-z]++[0-9]++|[\w.-]*+@[0-9]++")


def personal(name: str) -> bool:
    """Whether `name`'s last word names a person's password (PERSONAL)."""
    return _personal(name) if len(name) <= CACHED_LENGTH else _last_personal(name)


def _last_personal(name: str) -> bool:
    return (WORD.findall(name)[-1:] or [""])[0].lower() in PERSONAL


# Only short arguments are kept: each cached run of megabytes stayed in memory for the life of
# the process (an MCP server's, a pre-commit run's), up to 4,096 of them (40 notes of a 1 MB
# value held 40 MB after their check)
CACHED_LENGTH = 256
_personal = lru_cache(maxsize=4096)(_last_personal)


def no_password(rest: str, *, person: bool = False) -> bool:
    """Whether a sign-led value is a path, an entity, a filter or a field's name; a path of
    PERSONAL_SHAPE's names none when given to a person's password (`person`)."""
    return _no_password(rest, person) if len(rest) <= CACHED_LENGTH else _judged(rest, person)


def _judged(rest: str, person: bool) -> bool:
    # a share's path, `\\host\share\pw`, on backslashes too; elsewhere a backslash is a
    # password's sign (`@hunter2\secret9`, `!zq8xq2\abcdef` were let through as paths)
    names = (SLASHES if rest.startswith("\\\\") else SLASH).split(rest.lstrip(SIGNS))
    # two names at least with a letter: `!Passw0rd/2024` is no path; nor is one led by `!`,
    # `&`, `=`, `|` or `?`, which lead none (`!Zq8/abcdef`), nor a random name (`@zq8xq2/ab`)
    if (
        rest[:1] in PATH_SIGNS
        and sum(NAMED.search(name) is not None for name in names) >= 2
        and all(SEGMENT.fullmatch(name) and not MIXED.search(name) for name in names)
        and not (person and names[0] and any(PERSONAL_SHAPE.fullmatch(n) for n in names))
    ):
        return True
    return NO_PASSWORD.search(rest) is not None or _names_a_field(rest)


# Each value is judged once: a long run repeats its values (`token=!a&b=` repeated, each name's
# value read to 200 characters: 95,000 judged, 1.4 s of the 2.5 s a megabyte cost)
_no_password = lru_cache(maxsize=4096)(_judged)


def selector(name: str, value: str) -> bool:
    """Whether a `#`-led value is a CSS selector (SELECTOR) given to the name of an element
    (ELEMENTS: `password_input = "#login-form"`)."""
    last = WORD.findall(name)[-1:] or [""]
    part = last[0].lower() in ELEMENTS or last[0].lower().removesuffix("s") in ELEMENTS
    return part and bool(SELECTOR.fullmatch(value))
