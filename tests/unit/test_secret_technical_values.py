"""A technical name under a password's key, or a key that counts a password, is no password
(memidx/secrets/technical.py): each line below was refused by the short-password rule or as a
secret, and a pre-commit blocked a harmless note; real short passwords are still refused."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets
from memidx.secrets.technical import counted, technical


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    "text",
    [
        # an encoding, a type, a protocol, an algorithm
        "password: utf8",
        "password: UTF-8",
        "password: base64",
        "password: int32",
        "password: uint64",
        "password: ipv4",
        "password: oauth2",
        "pass: h264",
        "pass: crc32",
        "auth: kerberos5",
        "auth: Argon2id",
        "password_encryption = scram-sha-256",
        'setPassword("aes-256-gcm")',
        # a platform, a version, a step
        "password: x86_64",
        "password: arm64",
        "pass: node18",
        "password: python3",
        '"pass": "ubuntu-22.04"',
        "pw: ubuntu2204",
        "pass: step1",
        "pass: mem2reg",
        # a password manager's item
        "pass: 1Password/Prod-DB",
        "password: 1Password",
        # a file's mode, a well-known port
        "passwd: 0644",
        "pw: 8080",
        "password: 5432",
        "pw: 27017",
        # a placeholder
        "password: xxxx1",
        "password: ****1234",
        # a name that counts a password, or an event of one
        "max_password: 1000",
        "maxPassword: 1000",
        "MINPASSWORD=8",
        "on_pass: 1234",
        "pass_rate: 95",
        "bypass: 1234",
        "passes: 12",
        "password_attempts: 5",
        "min_password_length: 12",
        "onPassword: 1234",
        # a password manager's item of names, whatever the key
        "password: op://Prod/db/password",
        "secret: vault:secret/data/prod/db",
    ],
)
def test_a_technical_value_or_a_counting_key_is_no_password(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password: hunter2", "hunter2"),
        ("password: abc123", "abc123"),
        ("password: s3cret!", "s3cret!"),
        ("password: P@ss1", "P@ss1"),
        ("password: 20240101", "20240101"),
        ("password: changeme1", "changeme1"),
        ("pw: 1234", "1234"),
        ("pass: linux123", "linux123"),
        ("password: node1234", "node1234"),
        ("password: python2024", "python2024"),
        ("password: admin1", "admin1"),
        ("password: 0123", "0123"),
        ("pass: vault:hunter2", "vault:hunter2"),
        ("password: ubuntu-hunter2", "ubuntu-hunter2"),
        ('setPassword("sha256-hunter2")', "sha256-hunter2"),
        ("old_password: hunter2", "hunter2"),
        ("sign_on_password: hunter2", "hunter2"),
        ("maxwell_password: abc123", "abc123"),
        # a quantity's or an event's word elsewhere in the name says whose password it is
        ("ON_PREM_PASSWORD=abc123", "abc123"),
        ("RATE_LIMITER_PASSWORD=hunter2", "hunter2"),
        ("per_user_password: hunter2", "hunter2"),
        ("cost_center_password: abc123", "abc123"),
        # a version's or a step's word capitalised and numbered: a password's shape
        ("password: Linux99", "Linux99"),
        ("password: Java8", "Java8"),
        ("pass: Step12", "Step12"),
        # a literal secret written as a password manager's item
        ("DB_PASSWORD=op://QzkvTwpLmxRbNhYt", "op://QzkvTwpLmxRbNhYt"),
        ("api_key: vault:QzkvTwpLmxRbNhYtWc", "vault:QzkvTwpLmxRbNhYtWc"),
        ("password: keychain/CorrectHorseBatteryStaple", "keychain/CorrectHorseBatteryStaple"),
    ],
)
def test_a_real_looking_password_is_still_refused(text: str, secret: str) -> None:
    assert found(text) == [secret]


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ("secp256k1", True),
        ("ppc64le", True),
        ("linux/amd64", True),
        ("go1.21", True),
        ("chacha20-poly1305", True),
        ("ubuntu2204x9", False),
        ("me2you", False),
        ("Summer2024", False),
        ("day1", False),
    ],
)
def test_technical_reads_words_of_its_vocabulary_with_their_numbers(
    value: str, named: bool
) -> None:
    assert technical(value) is named


@pytest.mark.parametrize(
    ("name", "is_counted"),
    [
        ("max_password", True),
        ("password_max_length", True),
        ("onPassword", True),
        ("maxpassword", True),
        ("password", False),
        ("new_password", False),
        ("maxwell_password", False),
        ("sign_on_password", False),
    ],
)
def test_counted_names_a_quantity_or_an_event_of_a_password(name: str, is_counted: bool) -> None:
    assert counted(name) is is_counted
