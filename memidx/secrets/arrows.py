"""A bare value after `=>`, Ruby's, Perl's and PHP's hashes (pure): `password => hunter2x9Q`,
`:password => s3cr3tPassw0rd,`, `'api_key' => AKfoo...`.

The library's `=>` rule wants quotes (`=>` is also JavaScript's arrow, `password => ...` a
function of a parameter so named), and memidx read a bare value after `=>` only for its own
names (`token => ...`), so such a value went through where `password = hunter2x9Q` and
`password: hunter2x9Q` were refused. It is judged as a value after `=` is: an arrow
function's body is code, a reference, a call or a name (`password.length`, `hash(password)`,
`apiKey`), which no value judged secret is. A path of Rust's, Scala's or PHP's, a match arm's
(`Kind::Secret => SecretKind::Generic`, `Hash::make(...)`), is none either: it is code
wherever `=>` stands in it. A value led by a sign or a quote is read as after `=`
(assignments.SIGN_LED, the library's rules)."""

from __future__ import annotations

import re

from memidx.secrets.lazy_pattern import lazy

# from a word character, as the library's values start, up to a space, a quote, a `,` or `;`
# (a hash's next pair), a path's `::` (judged there) or another `=>` (a bare value holds
# none): a run of them, `password=>password=>...`, is read once, not from each name to its end
# (a value taken for a field's name, `password`, is read again from the next name: 40 KB of
# `password=>` took 4.4 s so, 200 KB minutes)
ARROW_VALUE = lazy(r"[ \t]*+([A-Za-z0-9_](?:[^\s\"'`,;:=]|:(?!:)|=(?!>))*+)")


def arrow_value(line: str, at: int, start: int = 0) -> re.Match[str] | None:
    """The bare value after the `=>` that ends at `at` in `line` (group 1), unless a path's
    `::` goes on from it or the name from `start` is a member's, unquoted (C#'s or Scala's
    match arm, `Kind.Password => PasswordHasher2`: no hash's key is so written); None after
    another assignment."""
    if not line.startswith("=>", at - 2) or match_arm(line, start, at):
        return None
    value = ARROW_VALUE.match(line, at)
    if value is None or line.startswith("::", value.end()):
        return None
    return value


def match_arm(line: str, start: int, at: int) -> bool:
    """Whether the name from `start` is a member, unquoted, before a `=>` that ends at `at`."""
    if not line.startswith("=>", at - 2):
        return False
    name = line[start : at - 2].rstrip(" \t")
    quoted = (start and line[start - 1] in "\"'") or name[-1:] in "\"'"
    return "." in name and not quoted
