"""Values given to a secret-sounding name in forms the library's keyword rules skip: a setter
called with a string (`setPassword("v4lue")`: its rule reads `password("v4lue")` in small
letters and double quotes only), a list (`password=["v4lue"]`, a value starting with `[`),
a flow collection mid-line (`Set password: [v4lue] now`) and a `:` after a space
(`{ password : v4lue }`). A lookup's argument and a variable pass."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets
from tests.unit.test_secrets_linear import detection_growth

VALUE = "Zq8vN3kLp2Rt7Wx"
OTHER = "hV4mB9cQ1sXe6Ty"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (f'setPassword("{VALUE}")', [VALUE]),
        (f"config.setApiKey('{VALUE}');", [VALUE]),
        (f'builder.withToken( "{VALUE}" ).build()', [VALUE]),
        (f'user.check_password("{VALUE}")', [VALUE]),
        (f'password=["{VALUE}"]', [VALUE]),
        (f"API_KEYS = ['{VALUE}', '{OTHER}']", [VALUE, OTHER]),
        (f"Set password: [{VALUE}] now", [VALUE]),
        (f"{{ password : {VALUE} }}", [VALUE]),
        (f'password : "{VALUE}"', [VALUE]),
        (f"api_key : {VALUE}", [VALUE]),
    ],
)
def test_a_value_called_listed_or_after_a_spaced_colon_is_found(
    text: str, found: list[str]
) -> None:
    assert [text[f.start : f.end] for f in find_secrets(text)] == found


@pytest.mark.parametrize(
    "text",
    [
        'keyring.getPassword("my-service", "alice@example.com")',  # a lookup's names
        'client.deleteSecret("prod-db-credentials")',
        'vault.readSecret("secret/data/prod/db")',
        "setPassword(userPassword)",  # a variable
        'password_fields = ["password", "password_confirmation"]',
        "api_keys = [os.environ['A'], os.environ['B']]",
        "Password : required field",  # prose
        "password : ${DB_PASSWORD}",
        "translate('forgot_password')",
        # what 20,000 files of code on a developer's machine hold: a lexer's token kinds, a
        # parser's calls, messages (each was refused once calls and lists were read)
        "tokens = ['DOUBLEDOT', 'NUMBER', 'ID', 'NAMED_OPERATOR']",
        '>>> tokens = ["foo", " ", "bar", " ", "19June2000", "baz"]',
        "token_variants = ['+i6t-not-inline', '+i6t-inline']",
        'self.tree.insertRoot(impliedTagToken("html", "StartTag"))',
        "# splitpasswd('user:passwd') -> 'user', 'passwd'",
        'raise InvalidToken("Supplied HOTP value does not match.")',
        "ERROR_DEDENT = TokenType('ERROR_DEDENT')",
        "bauth.add_password('basic_test_realm', localhost, 'jhylton', 'password')",
        'tokenize("x = 123141242151251616110l")',
        "sorted(rows, key=sortKey('name2'))",
    ],
)
def test_a_lookup_a_variable_or_a_placeholder_held_is_no_secret(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    "unit", ["setPassword(", 'setPassword("a",', "password=[a,", "password:[password:[", "pwd :"]
)
def test_reading_held_values_stays_linear(unit: str) -> None:
    find_secrets("password = warm")  # the plugins loaded before timing
    small, large = ((unit * (n // len(unit) + 1))[:n] for n in (6_000, 100_000))
    least, ratios = detection_growth(small, large)
    assert least < 64, f"16x the text took {ratios}x the time"
