"""Shapes a review of the detector's exceptions found let a password through: each exception
is kept for what it was made for, the password beside it refused."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('password: "@Hunter/Tiger@2024"', "@Hunter/Tiger@2024"),
        ('password: "@Acme/Summer@2024"', "@Acme/Summer@2024"),
        ('DB_PASSWORD="@acme/Welcome@1"', "@acme/Welcome@1"),
    ],
)
def test_a_year_after_a_word_is_no_packages_version(text: str, secret: str) -> None:
    """A package's version has a dot (`@4.7.0`); `@2024` after a word is a password's."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        'token: "@azure/keyvault-secrets@4.7.0"',
        'token: "@types/node@20.11.5"',
        'token: "@scope/pkg@1.0.0-beta.1"',
    ],
)
def test_a_package_with_its_version_is_no_password(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        'is_valid_password("Zq8vT2mW9pL")',
        'assert is_correct_password("Zq8vT2mW9pL")',
        'if is_password("Zq8vT2mW9pL"):',
    ],
)
def test_a_test_of_a_password_is_given_the_password(text: str) -> None:
    """`is_...` tests the value it is given, as `check_password` does: no getter's, which
    is given a secret's name (`keyring.get_password("svc", "bob")`)."""
    assert found(text) == ["Zq8vT2mW9pL"]


@pytest.mark.parametrize(
    "text",
    [
        'if has_secret("db-password-2024"):',
        'if store.has_password("prod-db-01"):',
        'ok = vault.has_secret("secret/data/prod/db")',
        'if keyring.has_password("my-service", "bob"):',
    ],
)
def test_a_stores_has_is_given_a_secrets_name(text: str) -> None:
    """`has_secret(name)` asks a store whether it holds one, as a getter does: with `has`
    off the getters' list each name was refused as a password."""
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('password_new = "#blue-sky7"', "#blue-sky7"),
        ('password_hash = "#blue-sky7"', "#blue-sky7"),
        ('db_password_str = "#sunny-day42"', "#sunny-day42"),
        ('secret_text = "#correct-horse-battery-staple"', "#correct-horse-battery-staple"),
    ],
)
def test_a_selectors_shape_given_to_a_secrets_name_is_found(text: str, secret: str) -> None:
    """A name whose last word is no secret's may still hold one (`_new`, `_str`, `_text`):
    only an element's name (`_input`, `Field`, `El`) is given a selector."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        'password_input = "#login-form"',
        'passwordField: "#signup-form"',
        'tokenSelector: "#token-input"',
        'passwordEl = "#password-input"',
    ],
)
def test_a_selector_given_to_an_elements_name_is_no_secret(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "token = b64encode()",
        "password = base64decode()",
        "token: oauth2client()",
        "credentials = loadS3Credentials()",
        "secret = fetchK8sSecret()",
        "token = createEc2Token(1)",
    ],
)
def test_a_call_of_a_function_named_with_digits_is_no_password(text: str) -> None:
    """A function's name holds one run of digits (`b64`, `S3`, `oauth2`); a password swaps
    single digits in (`Tr0ub4dor(3)`, `Passw0rd(1)`, still found)."""
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        ('setCredentials("alice@example.com", "x")', []),
        ('updateCredentials("gcp-sa-1", token)', []),
        ('setCredentials("bob@x.io", "Zq8vT2mW9pL")', ["Zq8vT2mW9pL"]),
        ('setCredentials("Zq8vT2mW9pL")', ["Zq8vT2mW9pL"]),
    ],
)
def test_a_credentials_setters_first_argument_is_a_users_name(
    text: str, secrets: list[str]
) -> None:
    """`setCredentials(user, password)`: the user's e-mail address was refused."""
    assert found(text) == secrets


@pytest.mark.parametrize(
    "text", ["password: !!str &pw Zq8vT2mW9pL", "password: &pw !!str Zq8vT2mW9pL"]
)
def test_the_value_after_an_anchor_and_a_str_tag_is_found(text: str) -> None:
    """YAML's `&pw` and `!!str` keep the value the key's; one of them alone was read."""
    assert found(text) == ["Zq8vT2mW9pL"]


@pytest.mark.parametrize(
    "text",
    [
        "password = Passw0rd()",
        "password = P4ssword()",
        "password = Welc0me()",
        "password = s3cretPass()",
        "password = MyPassw0rd(1)",
        'password = "Welc0meHome(1)"',
    ],
)
def test_a_password_with_one_digit_for_a_letter_shaped_as_a_call_is_found(text: str) -> None:
    """One digit for the letter it looks like (`0` for `o`, `4` for `a`), a small letter
    after it: a password's swap, no function's name (`oauth2client()`, `loadS3Credentials()`
    above are still calls); each was let through."""
    assert len(found(text)) == 1


@pytest.mark.parametrize(
    "text",
    [
        'setCredentials("Zq8vT2mW9pL",)',
        'setCredentials("Zq8vT2mW9pL", )',
    ],
)
def test_a_credentials_setters_only_argument_is_found(text: str) -> None:
    """A trailing `,` after the only argument names no user before a password."""
    assert found(text) == ["Zq8vT2mW9pL"]


@pytest.mark.parametrize(
    "name",
    [
        "password_modal",
        "passwordTextbox",
        "password_inputs",
        "passwordFields",
        "password_error",
        "passwordSubmit",
        "password_dialog",
        "password_hint",
    ],
)
def test_a_selector_given_to_another_part_of_a_page_is_no_secret(name: str) -> None:
    """A page's code names its parts past the first 20 words (a modal, a text box, a plural
    of inputs): `password_modal = "#login-modal"` was refused."""
    assert found(f'{name} = "#login-modal"') == []


@pytest.mark.parametrize(
    "text",
    [
        'token: "@types/node@20"',
        'secret: "@aws-sdk/client-secrets-manager@3"',
        'SECRET_PKG="@google-cloud/secret-manager@5"',
    ],
)
def test_a_package_with_its_major_version_is_no_password(text: str) -> None:
    """npm's names are in small letters, a major version alone after one (`@20`): refused
    once a version needed a dot; `@Acme/Summer@2024` above is still a password."""
    assert found(text) == []
