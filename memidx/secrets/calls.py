"""A password shaped as a call, told from a call of a function named with digits (pure).

A value in parentheses is a reference (`os.getenv("X")`), but a password may end so
(`Tr0ub4dor(3)`, `Passw0rd()`): a word with digits between its letters, as a password swaps
them in. A function's name holds one run of digits, where a library names its kind
(`b64encode`, `oauth2client`, `boto3client`, `s3client`, `md5sum`), and is given a value."""

from __future__ import annotations

import re

from memidx.secrets.lazy_pattern import lazy

# A word with digits between its letters given nothing, digits, or (swapped twice, no
# function's name) one short argument: `Tr0ub4dor(3)`, `Passw0rd(1)`, `s3cr3t()`,
# `Tr0ub4dor(x)` (let through as a call), or once for the letter it looks like, two letters
# after it (`Passw0rd(x)` was let through; `log1p(x)`, `vec3f(x)` are calls). `log2(8)`,
# `sha256(1)` have no letter after it.
LEET_CALL = lazy(r"[A-Za-z]*+[0-9]++[A-Za-z][A-Za-z0-9]*+\(([^\s(),]{0,16}+)\)")
DIGITS = lazy(r"[0-9]*+")
# A password swaps single digits in, twice or more (`Tr0ub4dor`, `s3cr3tP4ss`), or once in a
# word without humps given a digit (`Passw0rd(1)`), or once for the letter it looks like, a
# small letter after it (LEET: `Passw0rd()`, `P4ssword()`, `s3cretPass()`, `MyPassw0rd(1)`);
# a function's name has one run of digits, none such (`b64encode()`, `oauth2client()`,
# `loadS3Credentials()`), or one before a word of code (`s3client()`, `boto3client()`,
# `web3provider()`, `sha1sum()`: refused once LEET was read).
SWAPPED = lazy(r"(?<=[A-Za-z])[0-9](?=[A-Za-z])")
LEET = lazy(r"(?<=[A-Za-z])[013457]([a-z]++)")
HUMPED = lazy(r"[a-z0-9][A-Z]")
LETTERS = lazy(r"[A-Za-z]*+")
NAMED_KIND = lazy(r"(?<=[A-Za-z])[0-9]([a-z]++)")  # any digit, then a word
CODE_WORDS = frozenset(
    {"client", "clients", "resource", "session", "connect", "connection", "provider", "bucket",
     "service", "file", "files", "hex", "sum", "digest", "encode", "decode", "handler", "store",
     "storage", "upload", "download", "object", "config", "util", "utils", "helper", "api",
     "sdk", "lib", "path", "url", "uri", "reader", "writer", "parser", "loader", "cache",
     "stream", "data", "model", "app", "server", "proxy", "wallet", "contract", "signer", "hash",
     "js", "py", "instance", "key", "keys", "get", "put", "list", "open", "read", "write", "init",
     "test", "mock", "fs", "db", "ws", "http", "rpc", "sign", "verify", "string", "bytes"}
)  # fmt: skip


def password_call(value: str) -> bool:
    """Whether `value` is a password shaped as a call (LEET_CALL, SWAPPED), not a call of a
    function named with digits."""
    call = LEET_CALL.fullmatch(value) if value[:1].isalpha() else None
    if call is None:
        return False
    swaps = len(SWAPPED.findall(value))
    if swaps >= 2:
        return True
    if swaps != 1:
        return False
    leets = [leet for leet in LEET.finditer(value) if not _library(value, leet)]
    if not DIGITS.fullmatch(call[1]):  # `b64encode(raw)`: a function given a value, but
        return any(len(leet[1]) >= 2 for leet in leets)  # `Passw0rd(x)` (not `log1p(x)`)
    if leets:
        return True
    named = NAMED_KIND.search(value)  # `hunter2client()`: a word, a digit, a word of code
    if named and named[1] in CODE_WORDS and not _library(value, named):
        return True
    return bool(call[1]) and HUMPED.search(value) is None and not LEET.search(value)


def _library(value: str, leet: re.Match[str]) -> bool:
    """Whether the digit found (LEET, NAMED_KIND) names a library's kind: a word of code
    after it, a short name in small letters before it (`s3`, `boto3`, `web3`, `sha1`);
    `Dragon5session()`, `monkey1app()` were let through as calls."""
    before = LETTERS.match(value[leet.start() - 1 :: -1])  # the letters before it, reversed
    stem = before[0] if before else ""
    return leet[1] in CODE_WORDS and stem.islower() and len(stem) <= 5
