"""An independent tester's secret shapes: ones the detector missed (each now found, and gone
from the redacted text), hard places for the kinds README lists (front matter, a block
quote, a JSON string), and look-alikes a person writes daily that must stay unflagged.
Every value is assembled at run time from pieces, so the source holds no whole token."""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid

import pytest

from memidx.secrets.detect import find_secrets, redact_text

RNG = random.Random(3434)
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


def _r(alphabet: str, n: int) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


PASSWORD = "Zq8vX2m1kT" + _r(ALNUM, 4)
KEY_LINES = [base64.b64encode(RNG.randbytes(45)).decode() for _ in range(3)]
GITHUB = "gh" + "p_" + _r(ALNUM, 36)
XAPP = "".join(
    ["xa", "pp-1-A0", _r(string.ascii_uppercase + string.digits, 9), "-", _r(string.digits, 13)]
) + ("-" + _r(HEX, 64))
WHSEC = "wh" + "sec_" + _r(ALNUM, 32)


def _block(begin: str, end: str, *head: str) -> str:
    return "\n".join([begin, *head, *KEY_LINES, end])


PRIVATE = "PRIVATE" + " KEY"
PUTTY = (
    "PuTTY-User-Key-File-{}: ssh-ed25519\nEncryption: none\nComment: deploy\n"
    "Public-Lines: 1\nAAAAC3NzaC1lZDI1NTE5\nPrivate-Lines: 3\n"
    + "\n".join(KEY_LINES)
    + "\nPrivate-MAC: "
    + _r(HEX, 64)
)

# shape -> (text, the secret pieces that must not survive redaction), each missed before
MISSED = {
    # a Redis URL names no user; README: passwords in URLs
    "url-without-user": (f"REDIS_URL=redis://:{PASSWORD}@cache:6379/0", [PASSWORD]),
    "url-without-user-prose": (f"connect to rediss://:{PASSWORD}@cache:6380 first", [PASSWORD]),
    # `*_PASS=` in an env file: the keyword list had `db_pass` only
    "smtp-pass": (f"```env\nSMTP_HOST=mail\nSMTP_PASS={PASSWORD}\n```", [PASSWORD]),
    "redis-pass-yaml": (f"cache:\n  redis_pass: {PASSWORD}\n", [PASSWORD]),
    # a password on a command line: README's command-password kind
    "docker-login-p": (f"docker login -u ci -p {PASSWORD} registry.example.com", [PASSWORD]),
    "docker-login-password": (f"podman login --password '{PASSWORD}' quay.io", [PASSWORD]),
    # the keyword check flagged the command's name and kept the password
    "powershell-secure-string": (
        f"$pw = ConvertTo-SecureString '{PASSWORD}' -AsPlainText -Force",
        [PASSWORD],
    ),
    # Slack's app-level token and Stripe's webhook secret: README lists Slack and Stripe
    "slack-app-token": (f"SLACK_APP_TOKEN is {XAPP}", [XAPP]),
    "stripe-webhook-secret": (f"the signing secret is {WHSEC}", [WHSEC]),
    # private keys: PuTTY's v3 file (the library knows v2's header only) and RFC 4716's
    # SSH2 form (its spaced header never reached the library's pattern)
    "putty-v3": (PUTTY.format(3), KEY_LINES),
    "ssh2-encrypted": (
        _block(
            f"---- BEGIN SSH2 ENCRYPTED {PRIVATE} ----",
            f"---- END SSH2 ENCRYPTED {PRIVATE} ----",
            'Comment: "rsa-key-20240101"',
        ),
        KEY_LINES,
    ),
    # PuTTY's v2 header was found, but redaction kept the key's lines
    "putty-v2-redacted-whole": (PUTTY.format(2), KEY_LINES),
    # armor (RFC 4880, as `gpg --armor --export-secret-keys` writes it) and an encrypted
    # PEM's headers end at a blank line, where a block cut short was taken to end: only the
    # BEGIN line was masked, and every line of the key shown
    "pgp-armored": (
        _block(f"-----BEGIN PGP {PRIVATE} BLOCK-----", f"-----END PGP {PRIVATE} BLOCK-----", ""),
        KEY_LINES,
    ),
    "pgp-armor-headers": (
        _block(
            f"-----BEGIN PGP {PRIVATE} BLOCK-----",
            f"-----END PGP {PRIVATE} BLOCK-----",
            "Version: GnuPG v2",
            "Comment: deploy key",
            "",
        ),
        KEY_LINES,
    ),
    "pem-encrypted-headers": (
        _block(
            f"-----BEGIN RSA {PRIVATE}-----",
            f"-----END RSA {PRIVATE}-----",
            "Proc-Type: 4,ENCRYPTED",
            "DEK-Info: AES-256-CBC,5F4C9A2B3E1D0C8B7A6F5E4D3C2B1A09",
            "",
        ),
        KEY_LINES,
    ),
}


@pytest.mark.parametrize("shape", MISSED)
def test_a_missed_shape_is_found_and_redacted_whole(shape: str) -> None:
    text, pieces = MISSED[shape]
    note = f"How the runner logs in:\n\n{text}\n\nThat was all."

    done = redact_text(note)

    assert find_secrets(note, allow=True) != []
    assert [piece for piece in pieces if piece in done.text] == []
    assert done.text.startswith("How the runner logs in:\n") and done.text.endswith("was all.")


def _jwt() -> str:
    def part(data: object) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    sig = base64.urlsafe_b64encode(RNG.randbytes(32)).decode().rstrip("=")
    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part({'sub': '42', 'iat': 1})}.{sig}"


AWS_ID = "AK" + "IA" + _r(string.ascii_uppercase + string.digits, 16)
AWS_SECRET = _r(ALNUM + "/+", 40)
PEM = _block(f"-----BEGIN OPENSSH {PRIVATE}-----", f"-----END OPENSSH {PRIVATE}-----")
# README's kinds in the places a note puts them: each must be found
PLACES = {
    "aws-pair-in-ini": f"[ci]\naws_access_key_id = {AWS_ID}\naws_secret_access_key = {AWS_SECRET}",
    "front-matter": f"---\ntitle: CI\ngithub_token: {GITHUB}\n---\n\nThe CI token.",
    "token-in-clone-url": f"git clone https://x-access-token:{GITHUB}@github.com/acme/app.git",
    "pem-in-a-block-quote": "> " + PEM.replace("\n", "\n> "),
    "pem-in-a-list-item": "- the key:\n\n      " + PEM.replace("\n", "\n      "),
    "pem-in-a-json-string": json.dumps({"private_key": PEM + "\n"}),
    "encrypted-pkcs8": _block(
        f"-----BEGIN ENCRYPTED {PRIVATE}-----", f"-----END ENCRYPTED {PRIVATE}-----"
    ),
    "jwt-in-a-cookie": f"Cookie: session={_jwt()}; Path=/",
    "dotenv-in-a-fence": f"```\nDB_HOST=db\nDB_PASSWORD={PASSWORD}\n```",
}


@pytest.mark.parametrize("place", PLACES)
def test_a_listed_kind_is_found_wherever_a_note_puts_it(place: str) -> None:
    assert find_secrets(PLACES[place], allow=True) != []


# What a person writes daily: none of it may block a commit
DAILY = {
    "uuid": f"request {uuid.UUID(int=RNG.getrandbits(128))} failed",
    "git-sha": f"fixed in {hashlib.sha1(RNG.randbytes(8)).hexdigest()}",
    "yarn-integrity": "integrity sha512-" + base64.b64encode(RNG.randbytes(64)).decode(),
    "poetry-hash": f'{{file = "x.whl", hash = "sha256:{hashlib.sha256(b"x").hexdigest()}"}},',
    "cargo-checksum": f'checksum = "{hashlib.sha256(b"y").hexdigest()}"',
    "go-sum": "golang.org/x/text v0.3.0 h1:" + base64.b64encode(RNG.randbytes(32)).decode(),
    "aws-examples-in-ini": "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\n"
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "aws-examples-in-json": '{"AccessKeyId": "AKIAIOSFODNN7EXAMPLE", '
    '"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}',
    "docker-run-port": "docker run -p 8080:80 -p 5432:5432 postgres:16",
    "docker-login-stdin": 'echo "$CR_PAT" | docker login ghcr.io -u me --password-stdin',
    "powershell-from-a-variable": "$pw = ConvertTo-SecureString $env:DEPLOY_PW -AsPlainText",
    "docker-login-variable": 'docker login -u ci -p "$REGISTRY_PASSWORD" registry.example.com',
    "a-pass-that-is-no-password": "first_pass: true\nsecond_pass: 3\nbypass_cache=1",
    "redis-url-without-password": "REDIS_URL=redis://cache:6379/0 and redis://:@cache:6379",
    "ipv6-url": "curl http://[::1]:8080/health",
    # no user and a port where the password goes: a mistyped `host:port`, no credential
    "url-with-a-port-for-password": (
        "http_proxy=http://:8080@proxy and socks5h://:1080@gw and http://:3128@[fd00::1]/pac"
    ),
    "url-with-placeholder": "redis://:<password>@cache:6379 and redis://:$REDIS_PASS@cache",
    "ssh-fingerprint": "SHA256:" + base64.b64encode(RNG.randbytes(32)).decode().rstrip("="),
    "max-tokens": "max_tokens: 4096\ntokenizer = AutoTokenizer.from_pretrained('bert')",
    "k8s-secret-reference": "secretKeyRef:\n  name: db\n  key: password",
}


@pytest.mark.parametrize(
    "url",
    [
        "REDIS_URL=redis://:foobared@cache:6379",  # Redis's own example password, no user
        "redis://:123456@cache:6379/0",  # all digits, but more than a port's 65535
        "http://admin:8080@proxy.internal",  # a user named: 8080 is that user's password
        "redis://:12345@cache:6379/0",  # the host names its port: 12345 is Redis's password
        "REDIS_URL=rediss://:2024@[::1]:6380",  # so does an IPv6 host's
    ],
)
def test_a_url_password_stays_flagged_where_it_cannot_be_a_port(url: str) -> None:
    """`scheme://:8080@host` is taken for a mistyped `host:port`; nothing else is."""
    assert [f.kind for f in find_secrets(url, allow=True)] == ["basic-auth"]


@pytest.mark.parametrize("text", DAILY.values(), ids=list(DAILY))
def test_what_a_person_writes_daily_is_no_secret(text: str) -> None:
    assert find_secrets(text, allow=True) == []
