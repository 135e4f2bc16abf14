"""Encrypted JWTs (pure): RFC 7516's compact form, `header.key.iv.ciphertext.tag`, five parts
of base64url (the key empty for direct encryption, `alg: dir`). The library's JWT detector
reads three parts and checks that the second decodes to JSON, a JWE's encrypted key never
does: each was let through. A JWE's header is checked to decode to a JSON object with an
`enc` (the content's encryption, which only a JWE's header names), as the library checks a
JWT's, so five dotted runs after `eyJ` that are no JWE stay."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator

from memidx.secrets.lazy_pattern import lazy
from memidx.secrets.patterns import Finding

JWE_KIND = "jwt"  # a JWT all the same (RFC 7519): masked as the library's JWTs are
# tried only where a run begins (after no base64url character) and read possessively: each
# try reads at most five parts, so a paste of `eyJ` repeated costs linear time; the header's
# `eyJ` is looked for in the first part (HEADER_AT), after a word and its `_` or `-` too
JWE = lazy(
    r"(?<![A-Za-z0-9_-])([A-Za-z0-9_-]{11,}+)\.[A-Za-z0-9_-]*+\.[A-Za-z0-9_-]{8,}+"
    r"\.[A-Za-z0-9_-]{2,}+\.[A-Za-z0-9_-]{8,}+(?![A-Za-z0-9_-])"
)
# a JWE's header in a run's first part: at its start, or after a word's `_` or `-` (`x_eyJ...`,
# `jwe-eyJ...`, as the library reads a JWT anywhere in a word: each JWE so written was shown)
HEADER_AT = lazy(r"(?:[A-Za-z0-9]*+[_-])*?(?=eyJ)")


def jwe_tokens(text: str) -> Iterator[Finding]:
    """The JWEs in `text` whose header decodes to a JWE's."""
    if "eyJ" not in text:
        return  # a literal find first: most texts hold no token at all
    for match in JWE.finditer(text):
        header = HEADER_AT.match(text, match.start(), match.end(1))
        if header and _jwe_header(text[header.end() : match.end(1)]):
            yield Finding(header.end(), match.end(), JWE_KIND)


def _jwe_header(part: str) -> bool:
    """Whether a base64url part decodes to a JSON object naming an `enc`: a JWE's header."""
    try:
        header = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    except (binascii.Error, ValueError, RecursionError):
        return False
    return isinstance(header, dict) and "enc" in header
