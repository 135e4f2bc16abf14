"""A labeled set for the secret detector, made at run time from a seed: fake secrets of many
kinds (real-looking, never real) and look-alikes that are not secrets. Nothing secret-shaped is
stored in the repository: every value is assembled from pieces and random characters here, so
no scanner (GitHub push protection included) finds one in the source."""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

UPPER, LOWER, DIGITS = string.ascii_uppercase, string.ascii_lowercase, string.digits
ALNUM = UPPER + LOWER + DIGITS
HEX = "0123456789abcdef"


@dataclass(frozen=True, slots=True)
class Sample:
    """One labeled line: the kind of secret it holds (None for a look-alike), the secret's
    text (what must never be stored), and the line as a note or transcript would hold it."""

    kind: str | None
    secret: str
    line: str


def _r(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _password(rng: random.Random) -> str:
    return (
        _r(rng, LOWER, 4)
        + _r(rng, DIGITS, 3)
        + _r(rng, UPPER, 3)
        + rng.choice("!#%&*+")
        + _r(rng, ALNUM, 4)
    )


def _jwt(rng: random.Random) -> str:
    head = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = _b64url(
        json.dumps({"sub": _r(rng, DIGITS, 8), "name": "dev", "iat": 1700000000}).encode()
    )
    return f"{head}.{body}.{_b64url(rng.randbytes(32))}"


def _pem(rng: random.Random) -> str:
    lines = [base64.b64encode(rng.randbytes(48)).decode() for _ in range(4)]
    kind = "RSA " + "PRIVATE KEY"
    return "\n".join([f"-----BEGIN {kind}-----", *lines, f"-----END {kind}-----"])


# kind -> (secret maker, line template: {s} is the secret). Prefixes are split ("AK" "IA") so
# the source holds no whole token shape.
SECRETS: dict[str, tuple[Callable[[random.Random], str], str]] = {
    "aws-access-key": (
        lambda r: "AK" + "IA" + _r(r, UPPER + DIGITS, 16),
        "export AWS_ACCESS_KEY_ID={s}",
    ),
    "github-token": (lambda r: "gh" + "p_" + _r(r, ALNUM, 36), "I pasted {s} into the remote URL"),
    "github-fine-grained": (
        lambda r: "github" + "_pat_" + _r(r, ALNUM, 22) + "_" + _r(r, ALNUM, 59),
        "the fine-grained token {s} has repo scope",
    ),
    "gitlab-token": (lambda r: "gl" + "pat-" + _r(r, ALNUM, 20), "use the gitlab token {s} for CI"),
    "slack-token": (
        lambda r: (
            "xo" + "xb-" + _r(r, DIGITS, 11) + "-" + _r(r, DIGITS, 12) + "-" + _r(r, ALNUM, 24)
        ),
        "bot token {s} posts to #deploys",
    ),
    "slack-webhook": (
        lambda r: (
            "https://hooks.slack"
            + ".com/services/T"
            + _r(r, UPPER + DIGITS, 8)
            + "/B"
            + _r(r, UPPER + DIGITS, 8)
            + "/"
            + _r(r, ALNUM, 24)
        ),
        "alerts go to {s}",
    ),
    "stripe-key": (lambda r: "sk" + "_live_" + _r(r, ALNUM, 24), "STRIPE_KEY: {s}"),
    "openai-key": (
        lambda r: "sk-" + _r(r, ALNUM, 20) + "T3Blbk" + "FJ" + _r(r, ALNUM, 20),
        "OPENAI_API_KEY={s}",
    ),
    "openai-project-key": (lambda r: "sk-" + "proj-" + _r(r, ALNUM + "_-", 64), "the key is {s}"),
    "anthropic-key": (
        lambda r: "sk-" + "ant-api03-" + _r(r, ALNUM + "_-", 93) + "AA",
        "set ANTHROPIC_API_KEY to {s} before running",
    ),
    "google-api-key": (
        lambda r: "AI" + "za" + _r(r, ALNUM + "_-", 35),
        "maps key {s} in the config",
    ),
    "huggingface-token": (lambda r: "h" + "f_" + _r(r, UPPER + LOWER, 34), "login with {s}"),
    "private-key": (_pem, "the deploy key:\n{s}\nkeep it safe"),
    "jwt": (_jwt, "the session cookie was {s}"),
    "basic-auth": (
        _password,
        "DATABASE_URL=postgres://app:{s}@db.internal:5432/app",
    ),
    "password-assignment": (_password, "DB_PASSWORD={s}"),
    "api-key-assignment": (lambda r: _r(r, ALNUM, 32), 'api_key: "{s}"'),
    "bearer-token": (
        lambda r: _r(r, ALNUM + "-_", 40),
        "curl -H 'Authorization: Bearer {s}' https://api.internal/v1",
    ),
    "basic-auth-header": (
        lambda r: base64.b64encode(f"deploy:{_password(r)}".encode()).decode(),
        "curl -H 'Authorization: Basic {s}' https://api.internal/v1",
    ),
    "sendgrid-key": (
        lambda r: "S" + "G." + _r(r, ALNUM, 22) + "." + _r(r, ALNUM, 43),
        "mail key {s}",
    ),
    "npm-token": (lambda r: "np" + "m_" + _r(r, ALNUM, 36), "NPM_TOKEN is {s}"),
    "pypi-token": (lambda r: "pypi-" + "AgEIcHlwaS5vcmc" + _r(r, ALNUM, 70), "twine upload -p {s}"),
    "telegram-token": (
        lambda r: _r(r, DIGITS, 9) + ":" + "AA" + _r(r, ALNUM, 33),
        "bot {s} replies",
    ),
    "digitalocean-token": (lambda r: "do" + "p_v1_" + _r(r, HEX, 64), "doctl auth init -t {s}"),
    "netrc-password": (_password, "machine api.internal\n  login deploy\n  password {s}"),
}

# label -> (maker, template): text that looks like a secret to a careless scanner, and is not.
LOOK_ALIKES: dict[str, tuple[Callable[[random.Random], str], str]] = {
    "commit-sha": (lambda r: _r(r, HEX, 40), "fixed in commit {s}"),
    "short-sha": (lambda r: _r(r, HEX, 12), "see {s} for the revert"),
    "uuid": (
        lambda r: "-".join(_r(r, HEX, n) for n in (8, 4, 4, 4, 12)),
        "request id {s} failed",
    ),
    "image-digest": (lambda r: "sha256:" + _r(r, HEX, 64), "FROM python:3.12-slim@{s}"),
    "npm-integrity": (
        lambda r: "sha512-" + base64.b64encode(r.randbytes(64)).decode(),
        '"integrity": "{s}",',
    ),
    "pip-hash": (lambda r: "--hash=sha256:" + _r(r, HEX, 64), "requests==2.32.3 {s}"),
    "ssh-public-key": (
        lambda r: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + _r(r, ALNUM + "+/", 43),
        "add {s} dev@laptop to authorized_keys",
    ),
    "pem-public-key": (
        lambda r: (
            "-----BEGIN PUBLIC KEY-----\n"
            + base64.b64encode(r.randbytes(48)).decode()
            + "\n-----END PUBLIC KEY-----"
        ),
        "the server's public key:\n{s}",
    ),
    "placeholder-angle": (lambda r: "<your-token-here>", "GITHUB_TOKEN={s}"),
    "placeholder-env": (lambda r: "${API_KEY}", "api_key: {s}"),
    "placeholder-xxx": (lambda r: "x" * 20, "AWS_SECRET_ACCESS_KEY={s}"),
    "placeholder-caps": (lambda r: "YOUR_API_KEY_HERE", 'token = "{s}"'),
    "placeholder-changeme": (lambda r: "changeme", "password: {s}"),
    "placeholder-basic-auth": (
        lambda r: base64.b64encode(r.choice([b"username:password", b"user:<password>"])).decode(),
        "> Authorization: Basic {s}",
    ),
    "prose-basic": (lambda r: "authentication", "basic {s} sends the password in clear"),
    "env-reference": (lambda r: 'os.environ["DB_PASSWORD"]', "password = {s}"),
    "call-reference": (lambda r: "get_secret(name)", "secret = {s}"),
    "attribute-reference": (lambda r: "settings.DATABASE_PASSWORD", "password=config.{s}"),
    "variable-reference": (
        lambda r: r.choice(["authToken", "accessToken", "AUTH_TOKEN", "userPassword"]),
        "session.token = {s}",
    ),
    "base64-text": (
        lambda r: base64.b64encode(
            r.choice(["hello world, this is harmless", "the build cache is warm again"]).encode()
        ).decode(),
        "echo {s} | base64 -d",
    ),
    "prose-password": (lambda r: "the vault", "the password is kept in {s}, ask ops"),
    "placeholder-netrc": (
        lambda r: r.choice(["<password>", "$NETRC_PASSWORD", "yourpassword"]),
        "echo 'machine api.example.com login you password {s}' >> ~/.netrc",
    ),
    "prose-machine": (lambda r: "field", "the machine learning model's password {s} is masked"),
    "prose-token": (lambda r: "expired", "my token: expired, so I logged in again"),
    "url-path": (
        lambda r: (
            "https://github.com/acme/"
            + _r(r, LOWER, 8)
            + "/blob/main/src/"
            + _r(r, LOWER, 10)
            + ".py"
        ),
        "see {s}",
    ),
    "file-path": (
        lambda r: "/usr/lib/python3.12/site-packages/" + _r(r, LOWER, 12) + "/__init__.py",
        "the traceback ends in {s}",
    ),
    "long-identifier": (
        lambda r: "ConfigurationLoaderFactory" + r.choice(["Builder", "Provider", "Registry"]),
        "rename {s} to something shorter",
    ),
    "version-string": (
        lambda r: f"1.{r.randint(0, 40)}.{r.randint(0, 9)}-rc.{r.randint(1, 9)}",
        "bump to {s}",
    ),
    "ip-address": (
        lambda r: f"10.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}",
        "the host is {s}",
    ),
}


def samples(seed: int, per_kind: int) -> tuple[list[Sample], list[Sample]]:
    """(secrets, look-alikes): `per_kind` lines of each kind and each look-alike label."""
    rng = random.Random(seed)
    secrets = [
        Sample(kind, secret, template.format(s=secret))
        for kind, (make, template) in SECRETS.items()
        for secret in (make(rng) for _ in range(per_kind))
    ]
    looks = [
        Sample(None, value, template.format(s=value))
        for _label, (make, template) in LOOK_ALIKES.items()
        for value in (make(rng) for _ in range(per_kind))
    ]
    return secrets, looks


def label_of(sample: Sample) -> str:
    """The look-alike's label (for reports), from its line."""
    for label, (_, template) in LOOK_ALIKES.items():
        prefix = template.split("{s}")[0]
        if sample.kind is None and sample.line.startswith(prefix):
            return label
    return sample.kind or "?"
