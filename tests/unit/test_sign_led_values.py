"""A quoted value that starts with a sign, given to a secret-sounding name of the library's list
(`password`, `secret`, `api_key`): the library's rules read only a value that starts with a
word character, and `DB_PASSWORD="#Xk9pQ2mL7vR"` was let through where `token: "#..."` (a
name of memidx's own list) was refused. Variables, globs, options, files and versions pass."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets
from tests.unit.test_secrets_linear import detection_growth

VALUE = "Zq8vN3kLp2Rt7Wx"


@pytest.mark.parametrize("sign", ["#", "!", "@", "&", "+", "?", "=", "|"])
@pytest.mark.parametrize(
    "form",
    [
        'DB_PASSWORD="{v}"',
        "password: '{v}'",
        '"password": "{v}"',
        "secret = `{v}`",
        'api_key => "{v}"',
        'x = 1, password = "{v}"',
    ],
)
def test_a_quoted_value_starting_with_a_sign_is_found(sign: str, form: str) -> None:
    text = form.format(v=sign + VALUE)

    found = [text[f.start : f.end] for f in find_secrets(text)]

    assert found == [sign + VALUE]


@pytest.mark.parametrize(
    "text",
    [
        'password = "%DB_PASSWORD%"',  # a Windows variable
        'password = "$DB_PASSWORD"',
        'password = "*************"',
        'password = "--password-stdin"',  # an option
        'password_file = ".env.local"',
        '"@aws-sdk/client-secrets-manager": "^3.450.0"',  # a version
        'password = "~/.config/db-password"',
        'password = "#{vault.db_password}"',
        'password = "@string/db_password"',  # an Android resource
        'password: "!Ref DbPassword"',  # words, not a value
        f'username = "#{VALUE}"',  # no secret-sounding name
    ],
)
def test_a_reference_or_an_option_starting_with_a_sign_is_no_secret(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    "text",
    [
        'password_field = "#id_password1"',  # Django's field, a CSS selector in a test
        'passwordSelector = "#user_password_confirmation"',
        'cy.get(password_input="#signupPasswordInput")',
        'secret_panel: "#settingsSecretPanel2"',
        'password = ":password"',  # a symbol naming the field
        '"password": "?password"',
        'password = "@@DB_PASSWORD@@"',  # a placeholder
        'api_key: "!ENV:OPENAI_API_KEY"',
        'secret: "@/lib/secretStore"',  # a path alias
        'password: "&lt;your-password-here&gt;"',  # an HTML entity
        'password: "|base64decode"',  # a template filter
    ],
)
def test_a_selector_a_symbol_or_a_path_led_by_a_sign_is_no_secret(text: str) -> None:
    """Each was refused once sign-led values were read (a developer's notes hold them)."""
    assert find_secrets(text) == []


@pytest.mark.parametrize("value", ["#hunter2secret", "#MySecret2024", "@Passw0rd_2024"])
def test_a_password_holding_a_secret_word_is_still_found(value: str) -> None:
    """A field's name is words joined as code joins them: a password's words are not."""
    text = f'DB_PASSWORD="{value}"'

    assert [text[f.start : f.end] for f in find_secrets(text)] == [value]


@pytest.mark.parametrize(
    "value",
    [
        "+wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ",  # base64: a `/` in it is no path
        "+Xk9/qW2zLm8vN",
        "!Passw0rd/2024",  # one name with letters: no path
        "#secret-Zk9qW2vLp8Rt7",  # a secret's word, then random: no field's name
        "=token_Zk9qW2vLp8Rt7",
        "#key_8f3a9c2e1b7d",
        "&k8Zq;2WvLp9Rt7",  # `&...;` no HTML entity
    ],
)
def test_a_password_with_a_slash_a_word_or_an_ampersand_is_still_found(value: str) -> None:
    """A path's names, a field's words and an entity are read strictly: a random value led by
    a sign that holds a `/`, `secret-` or `&...;` was let through when any of them did."""
    text = f'DB_PASSWORD="{value}"'

    assert [text[f.start : f.end] for f in find_secrets(text)] == [value]


@pytest.mark.parametrize(
    "text",
    [
        'password: "@/components/PasswordInput.tsx"',
        'secret: "@types/node"',
        'password_field = "#user-password-2"',
        'password: "&#x2022;&#x2022;&#x2022;"',
        # memidx's own names (token, credential...) read them as the library's names do
        'token: "@octokit/auth-token"',
        'auth_token: "#/components/schemas/AuthToken"',
        "GITHUB_TOKEN: ':github_token'",
        'credentials: "@@APP_CREDENTIALS@@"',
    ],
)
def test_a_path_a_field_or_an_entity_read_strictly_is_still_no_secret(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize("unit", ['password="#ab ', 'password="#a/B', 'password="#aB_c-'])
def test_reading_values_starting_with_a_sign_stays_linear(unit: str) -> None:
    find_secrets("password = warm")  # the plugins loaded before timing
    small, large = ((unit * (n // len(unit) + 1))[:n] for n in (1_000, 16_000))
    least, ratios = detection_growth(small, large)
    assert least < 64, f"16x the text took {ratios}x the time"


@pytest.mark.parametrize("sign", ["!", "@", "&", "+", "?", "=", "\\"])
@pytest.mark.parametrize(
    "form",
    ["PASSWORD={v}", "export DB_PASSWORD={v}", "password = {v}", "secret := {v}", "api_key: {v}"],
)
def test_an_unquoted_value_starting_with_a_sign_is_found(sign: str, form: str) -> None:
    """`PASSWORD=!Zq8...` in a `.env` file was let through where `PASSWORD="!Zq8..."` was
    refused (`&`, `!` and `#` too after `:`, when the value is no YAML anchor's or tag's)."""
    text = form.format(v=sign + VALUE)

    assert [text[f.start : f.end] for f in find_secrets(text)] == [sign + VALUE]


@pytest.mark.parametrize("text", [f"PASSWORD=#{VALUE}", f"PASSWORD=|{VALUE}", f"password:#{VALUE}"])
def test_an_unquoted_value_starting_with_a_hash_or_a_bar_is_found(text: str) -> None:
    """`#` after no space starts no comment; `|` after `=` starts no YAML block."""
    assert [text[f.start : f.end] for f in find_secrets(text)] == [text[text.index(VALUE) - 1 :]]


@pytest.mark.parametrize(
    "text",
    [
        "password: &default_password",  # YAML's anchor, alias and tags
        "password: &defaults\n  user: app",
        "password: *Zq8vN3kLp2Rt7Wx",
        "db_password: !vault |",
        "password: !!binary",
        "secret_key: !Ref DbSecretKey2",
        "password: &pw ${DB_PASSWORD}",
        "api_key: !GetAtt ApiKey.Value",
        "password: |",
        f"PASSWORD= #{VALUE}",  # a comment
        f"password: # {VALUE}",
        "PASSWORD=!ENV:DB_PASSWORD",  # a field's name, a path, an entity (as quoted)
        "password=&lt;secret&gt;",
        "Type: AWS::SecretsManager::RotationSchedule",  # a scope, no value
    ],
)
def test_a_yaml_anchor_tag_or_comment_after_a_name_is_no_secret(text: str) -> None:
    assert find_secrets(text) == []


def test_reading_unquoted_values_starting_with_a_sign_stays_linear() -> None:
    find_secrets("password = warm")  # the plugins loaded before timing
    for unit in ("password=!a ", "password: &a ", "password:!", "password=&"):
        small, large = ((unit * (n // len(unit) + 1))[:n] for n in (6_000, 100_000))
        least, ratios = detection_growth(small, large)
        assert least < 64, f"{unit!r}: 16x the text took {ratios}x the time"


@pytest.mark.parametrize(
    "text",
    [
        "isSecret = !isPublic",
        "tokenValid = !isExpired;",
        "const hasPassword = !user.passwordHash;",
        "needsPassword = !hasPassword()",
        "token_ok = !!session.token_expired",
        "let secretKey = !options.insecure;",  # a holder's name given code's shapes
        "this.password = !this.state.revealed;",
        "apiKey = !isProduction ? devKey : prodKey",
    ],
)
def test_code_negating_a_variable_is_no_secret(text: str) -> None:
    # read as an unquoted sign-led value, each was refused
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "PASSWORD=!hunter22x",
        "DB_PASSWORD=!correcthorse9",
        "password = !Welcome2024",
        "db.password=!secretpass",  # a .properties file's
    ],
)
def test_a_password_led_by_a_bang_is_still_found(text: str) -> None:
    assert find_secrets(text) != []


@pytest.mark.parametrize(
    "text",
    [
        "password = !hunter2",
        "password = !secretpass9",
        "db_password = !qwerty2024",
        "dbPassword := !correcthorse9",
        "apiKey = !sessionkey42",
    ],
)
def test_a_password_led_by_a_bang_after_a_spaced_equals_is_still_found(text: str) -> None:
    # an INI file's or my.cnf's `password = !hunter2`, read as code's negation of a variable
    # named `hunter2`, was let through: a name that holds a secret is given no flag
    assert find_secrets(text) != []
