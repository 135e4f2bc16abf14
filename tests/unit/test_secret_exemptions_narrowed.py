"""Passwords the last round's exemptions let through (locale names, a code word after a
digit, a constant's name as a member, a setter verb, a template's `}}`, a marker on a
closing tripled quote), each refused before it: the exemption is narrowed to its shape."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password: de_DE@hunter", "de_DE@hunter"),
        ("DB_PASSWORD=en_US@qwerty", "en_US@qwerty"),
    ],
)
def test_a_word_after_a_locales_at_is_no_variant(text: str, secret: str) -> None:
    """A locale's variant is one of glibc's few (`@euro`, `@latin`...): any word after
    `xx_YY@` was taken for one and the password let through."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text", ["token = de_DE@euro", "token = sr_RS@latin", "token = uz_UZ.UTF-8@cyrillic"]
)
def test_a_locales_variant_is_still_no_secret(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        'password = "Dragon5session()"',
        'password = "Monkey1app()"',
        'password = "Welcome1test()"',
        "password = monkey1app()",
    ],
)
def test_a_word_and_a_digit_before_a_code_word_is_a_password(text: str) -> None:
    """A library's name before its digit is short, in small letters (`s3`, `boto3`, `web3`,
    `sha1`): a capitalised word or a long one (`Dragon5`, `monkey1`) is a password's."""
    assert len(found(text)) == 1


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password = !admin.ADMIN2024", "!admin.ADMIN2024"),
        ("db_password = !hunter.HUNTER22", "!hunter.HUNTER22"),
    ],
)
def test_a_constants_member_with_digits_given_to_a_holder_is_a_password(
    text: str, secret: str
) -> None:
    """A constant's name as a member (`!!process.env.CI`) holds no digits: `!admin.ADMIN2024`
    given to a password was read as code's negation and let through."""
    assert found(text) == [secret]


@pytest.mark.parametrize("text", ["storePassword = !dragonfly", "storePassword = !Zq8vT2mW9pL"])
def test_an_android_store_password_is_a_holder(text: str) -> None:
    """`storePassword` is the key of Android's keystore password (keystore.properties,
    build.gradle), no flag: read as the verb `store` before a secret's word, its value was
    taken for code's negation of a variable and let through."""
    assert len(found(text)) == 1


@pytest.mark.parametrize(
    "text",
    [
        '{{ define "x" }} password: Zq8vT2mW9pLx}}',
        "token: \"{{ lookup('env','T') }}\" secret: \"Zq8vT2mW9pLx}}\"",
    ],
)
def test_a_value_closing_braces_a_closed_template_left_is_found(text: str) -> None:
    """A value ending `}}` sits inside a template only where one is left open before it:
    any `{{` on the line, closed before the name, let the password through."""
    assert found(text) == ["Zq8vT2mW9pLx"]


def test_a_marker_on_a_closing_quote_allows_no_secret_before_the_opening_quotes() -> None:
    """The marker allows the string, from its opening quotes: a secret before them on the
    opening line was allowed with it."""
    text = 'token = "Zq8vT2mW9pLqX4"; doc = """\ntext\n"""  # memidx: allow-secret\n'
    assert found(text) == ["Zq8vT2mW9pLqX4"]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("DB_PASSWORD=Xk9#mQ2&zP=7vLq", "Xk9#mQ2&zP=7vLq"),
        ("password=Zq8vT2mW&x=9pLq", "Zq8vT2mW&x=9pLq"),
    ],
)
def test_an_ampersand_pair_outside_a_query_string_is_part_of_the_password(
    text: str, secret: str
) -> None:
    """Only a query string encodes a value's `&`: in a .env file, cut at `&zP=`, each part
    was too short to judge (let through), or half the password was left unmasked."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        ("https://x.io/cb?access_token=Zq8vT2mW9pLxQ&state=abc", ["Zq8vT2mW9pLxQ"]),
        ("token_type=bearer&grant_type=client_credentials", []),
    ],
)
def test_a_query_strings_pair_still_ends_a_value(text: str, secrets: list[str]) -> None:
    assert found(text) == secrets


@pytest.mark.parametrize(
    "text",
    [
        'encryptSecret(data, "aes-256-gcm")',
        'encryptPassword(plain, "AES/GCM/NoPadding")',
        'hashPassword(password, "sha-512")',
        'setPassword("aes-256-gcm")',
    ],
)
def test_an_algorithm_given_after_the_secret_is_none(text: str) -> None:
    """A call that hashes or encrypts a secret (read since wt-sec4) is given its algorithm
    after it: `"aes-256-gcm"` was refused as a password. An algorithm's name alone is none
    wherever it stands (memidx.secrets.technical: `password_encryption = scram-sha-256`)."""
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        'hashPassword(pw, "Des1gner2024")',
        'setPassword("sha256-hunter2")',
        'checkPassword(u, "Sha256pass")',
    ],
)
def test_a_password_shaped_as_an_algorithm_is_still_read(text: str) -> None:
    assert len(found(text)) == 1


@pytest.mark.parametrize(
    "text",
    [
        "log: body=grant_type%253Dpassword%2526password%253DZq8vT2mW9pL",
        "https://sso/login?continue=https%3A%2F%2Fapp%2Fcb%3Fnext%3D%252Fauth%253Fpassword%253DZq8vT2mW9pL",
    ],
)
def test_a_pair_encoded_twice_is_read_decoded_twice(text: str) -> None:
    """A URL in a parameter of a URL in another's writes `=` as `%253D`: read decoded once,
    no name was given a value there, and the password was let through."""
    assert found(text) == ["Zq8vT2mW9pL"]


@pytest.mark.parametrize("text", ["password = hunter2client()", "token = Summer2app()"])
def test_a_long_or_capitalised_word_before_a_digit_and_a_code_word_is_a_password(
    text: str,
) -> None:
    """A digit that looks like no letter (`2`, `6`, `8`, `9`) after a word, then a word of
    code and no argument, was read as a call (`oauth2client()`) and let through."""
    assert len(found(text)) == 1


@pytest.mark.parametrize("text", ["token = oauth2client()", "secret = md5sum()"])
def test_a_library_named_with_a_digit_is_still_a_call(text: str) -> None:
    assert found(text) == []


def test_a_list_of_passwords_given_a_selector_shaped_password_is_read() -> None:
    """`list` names no element of a page: `password_list` holds passwords, and its
    `"#blue-sky7"` was let through as a CSS selector."""
    assert found('password_list = "#blue-sky7"') == ["#blue-sky7"]
