"""An encrypted JWT (JWE, RFC 7516's compact form: `header.key.iv.ciphertext.tag`, five parts
of base64url, the key empty for direct encryption) is masked whole: the library's JWT
detector reads three parts and checks that its payload decodes to JSON, which a JWE's
encrypted key never does, so every JWE was let through and shown. Its header is checked to
decode to a JWE's (an `enc` among its fields): five dotted runs after `eyJ` that are no JWE
stay."""

from __future__ import annotations

import base64
import json
import random

import pytest

from memidx.secrets.detect import find_secrets, redact_text


def _part(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _random(size: int, seed: int) -> str:
    draw = random.Random(seed)
    return _part(bytes(draw.randrange(256) for _ in range(size)))


def _jwe(header: dict[str, str], key: int, seed: int) -> str:
    parts = [_random(key, seed) if key else "", _random(12, seed + 1), _random(60, seed + 2)]
    return ".".join([_part(json.dumps(header).encode()), *parts, _random(16, seed + 3)])


RSA = _jwe({"alg": "RSA-OAEP-256", "enc": "A256GCM"}, 256, 1)
DIRECT = _jwe({"alg": "dir", "enc": "A128CBC-HS256"}, 0, 5)  # no encrypted key: `header..iv`
WRAPPED = _jwe({"alg": "A256KW", "enc": "A256GCM", "kid": "k1"}, 40, 9)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (RSA, "[REDACTED:jwt]"),
        (f"The session cookie was {DIRECT}.", "The session cookie was [REDACTED:jwt]."),
        (f'{{"id_token": "{WRAPPED}"}}', '{"id_token": "[REDACTED:jwt]"}'),
        (
            f"curl -H 'X-Enc: {RSA}' https://api.example.com",
            "curl -H 'X-Enc: [REDACTED:jwt]' https://api.example.com",
        ),
        (f"jwe={DIRECT}", "jwe=[REDACTED:jwt]"),
    ],
)
def test_an_encrypted_jwt_is_masked_whole(text: str, shown: str) -> None:
    assert redact_text(text).text == shown
    assert redact_text(text, allow=True).text == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        # after a word and its `_` or `-`, as the library reads a JWT: each was shown whole
        (f"session_{DIRECT}", "session_[REDACTED:jwt]"),
        (f"Cookie: jwe-{RSA}; Path=/", "Cookie: jwe-[REDACTED:jwt]; Path=/"),
        (f"x_y-{WRAPPED}.", "x_y-[REDACTED:jwt]."),
    ],
)
def test_an_encrypted_jwt_after_a_word_is_masked(text: str, shown: str) -> None:
    assert redact_text(text).text == shown


SIGNED_HEADER = _part(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())


@pytest.mark.parametrize(
    "text",
    [
        # a JWS's header (no `enc`) before five parts: no JWE
        f"see {SIGNED_HEADER}.abcdefgh.ijklmnopqr.stuvwxyzab.cdefghijkl for the layout",
        "eyJub3QganNvbg.a.b.c.d",  # a header that decodes to no JSON, parts too short
        "the versions eyJfoo.1.2.3.4 and v1.2.3.4.5",
        "a_b-c_d-eyJ.abcdefgh.ijklmnopqr.stuvwxyzab.cdefghijkl",  # no header after the word
    ],
)
def test_five_dotted_parts_that_are_no_jwe_stay(text: str) -> None:
    assert find_secrets(text, allow=True) == []
