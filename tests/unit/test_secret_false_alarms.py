"""Values refused as secrets that a developer's notes hold and are none: a form's label
(`Password:`), a variable named as code abbreviates a password (`hashed_pw`), a package led by
`@` given to `token` (memidx's own list of names skipped the rules for sign-led values), one
capitalised word (`Passwort` in a translation file), and a path from a hidden folder as an
XML element's text (`.venv/bin/python`, let through as a keyword's value)."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets

VALUE = "Zq8vN3kLp2Rt7Wx"


@pytest.mark.parametrize(
    "text",
    [
        '<label name="password">Password:</label>',
        "<password>Passwort:</password>",
        "login(password=hashed_pw)",
        "connect(user, pw=db_pw)",
        'token: "@azure/identity-broker"',
        'GITHUB_TOKEN="#id_token_field"',
        "credentials: @/lib/credentialStore",
        "password: Passwort",  # a translation file's entries
        'password = "Kennwort"',
        "secret_label: Geheimnis",
        "api_key: Credentials",
        "<password>.venv/bin/python</password>",
        "<password>../secrets/db.txt</password>",
        "password: ./config/db-password",
    ],
)
def test_a_label_a_variable_a_package_a_word_or_a_path_is_no_secret(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    "value",
    [VALUE, "SuperSecret", "correctHorseBattery", f"@{VALUE}", f"!{VALUE}", "Geheimnis2"],
)
@pytest.mark.parametrize("form", ["password: {v}", "GITHUB_TOKEN={v}", "<password>{v}</password>"])
def test_a_password_beside_them_is_still_found(value: str, form: str) -> None:
    text = form.format(v=value)

    assert [text[f.start : f.end] for f in find_secrets(text)] == [value]


@pytest.mark.parametrize(
    "text",
    [
        "<password>--password-stdin</password>",  # an option
        "<password>%DB_PASSWORD%</password>",  # a Windows variable
        "<password>#id_password1</password>",  # a selector
        "<password>@/lib/secretStore</password>",  # a path alias
        "<token>^1.2.3-beta.4</token>",  # a version
        '<add key="ApiKey" value="--api-key-file"/>',
    ],
)
def test_an_elements_text_is_judged_as_a_keywords_value_is(text: str) -> None:
    """`password: --password-stdin` passed where `<password>--password-stdin</password>`
    was refused: XML's values were judged more strictly than a keyword's."""
    assert find_secrets(text) == []


@pytest.mark.parametrize("sign", ["-", ".", "^", "*", "\\"])
@pytest.mark.parametrize("form", ["<password>{v}</password>", '<add key="ApiKey" value="{v}"/>'])
def test_an_elements_password_led_by_a_sign_is_still_found(sign: str, form: str) -> None:
    # any value led by `-`, `.`, `^` or `*` was let through as an option, a path, a version
    # or a glob; only those shapes are
    text = form.format(v=sign + VALUE)

    assert [text[f.start : f.end] for f in find_secrets(text)] == [sign + VALUE]


@pytest.mark.parametrize(
    "text",
    [
        "<password>$DB_PASSWORD</password>",
        "<secretFile>./secrets/db_password</secretFile>",
        "<password>*.pem</password>",
        "<password>.pgpass</password>",
        "<password>-p</password>",
    ],
)
def test_an_elements_option_variable_glob_or_path_is_no_secret(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    "text",
    [
        '<add key="PasswordFile" value=".\\App_Data\\pw.txt"/>',
        '<add key="ApiKeyPath" value="%ProgramData%\\MyApp\\key.txt"/>',
        "<passwordFile>..\\secrets\\db_password.txt</passwordFile>",
        "<secretFile>%APPDATA%\\app\\secret.txt</secretFile>",
        "<secret>.\\secret.json</secret>",
    ],
)
def test_an_elements_windows_path_is_no_secret(text: str) -> None:
    # a .NET config's path, by `\` from `.` or a `%VARIABLE%`: let through as a keyword's
    # value (`secretFile = "%APPDATA%\\app\\secret.txt"`), refused as an element's since only
    # a path by `/` was taken for one
    assert find_secrets(text) == []
