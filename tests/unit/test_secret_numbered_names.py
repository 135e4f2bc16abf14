"""A name of code with digits given to a secret's key is no secret: its version's
(`password = passwordHashV2`, `secret => getSecretV3`, `token = userTokenV2`) or a technical
word's (`oauth2Token`, `sha256Secret`, `S3_SECRET_KEY`). Each was refused, a digit among
letters of both cases having a password's entropy, where the same name without its digits
passed. A password that swaps digits in anywhere else stays refused (`Tr0ub4dor&3`,
`aB3xK9mQ2`, `userToken2`), and so does a name of words that name no secret, as without
digits (`correctHorseV2`, as `correctHorseBattery`)."""

from __future__ import annotations

import random
import string

import pytest

from memidx.secrets.detect import find_secrets
from memidx.secrets.numbered_names import numbered_name

SHAPES = ("password = {}", "secret => {}", "token: {}", "const apiKey = {};", "PASSWORD={}")

NAMES = [
    "passwordHashV2",
    "getSecretV3",
    "userTokenV2",
    "getTokenV10",
    "apiKeyV2",
    "dbPasswordV2",
    "hashPasswordV2Async",
    "oauth2Token",
    "sha256Secret",
    "base64Key",
    "s3SecretKey",
    "OAUTH2_TOKEN",
    "S3_SECRET_KEY",
    "oauth2_client_secret",
    "secret_v2_key",
    "getTokenV2Id",  # a word of two letters after the version, a name's
    "userTokenV2ById",
]
PASSWORDS = [
    "Tr0ub4dor&3",
    "aB3xK9mQ2",
    "xK9mQ2vL5pR8",
    "Summer2024",
    "userToken2",  # a digit no version's: a password's as often
    "passwordHash2",
    "superSecret1",
    "hunter2Password",
    "py4kSecretKey",  # a letter or two before digits: a random string's
    "V0yarSecretKey",  # a version first
    "correctHorseV2",  # no secret's word: judged as `correctHorseBattery` is
    "computeHashV2",
    "PasswordHasherV2",  # from a capital, as `SuperSecret`, a password
    "tokenV9X",  # letters after digits that are no word: a random string's tail
    "secretV3Q",
    "apiKeyV2Zq",
    "tokenV8Tq",
    "oauth2TokenQ",
    "tokenV9Qa",  # two letters and a vowel: no word of code, a random string's tail
    "secretV4Xo",
]


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", NAMES)
def test_a_name_of_code_with_digits_is_no_secret(name: str, shape: str) -> None:
    assert found(shape.format(name)) == []


@pytest.mark.parametrize("shape", SHAPES[::2])  # `secret =>` and `apiKey =` pass some already
@pytest.mark.parametrize("password", PASSWORDS)
def test_a_password_with_digits_is_refused(password: str, shape: str) -> None:
    assert found(shape.format(password)) == [password]


def test_random_strings_are_no_names() -> None:
    """Random strings of letters and digits, and random strings around a secret's word
    (`xq7TokenV9b`), are read as names of code once in 5,000 at most."""
    draw = random.Random(59)
    alphabet = string.ascii_letters + string.digits
    words = ("token", "Token", "secret", "Secret", "Key", "password", "Password", "Auth")

    def run(low: int, high: int) -> str:
        return "".join(draw.choice(alphabet) for _ in range(draw.randint(low, high)))

    plain = [run(8, 20) for _ in range(20_000)]
    around = [run(3, 8) + draw.choice(words) + run(2, 8) for _ in range(20_000)]
    assert sum(map(numbered_name, plain)) == 0
    assert sum(map(numbered_name, around)) <= 4
