"""Short secret-sounding names and a random string led by `-`: JSON's `"pass":`, `login_pw=`,
`auth=` were let through (no name of the library's list nor memidx's), and so was
`password = -ZqvTmWpLqXk`, random letters after `-` with no digit among them."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets

RANDOM = "Zq8vT2mW9pLq"


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    "text",
    [
        f'{{"user": "bob", "pass": "{RANDOM}"}}',
        f"login_pw={RANDOM}",
        f"auth={RANDOM}",
        f"SMTP_AUTH: {RANDOM}",
        f"db-pw: {RANDOM}",
        f"export PW={RANDOM}",
        f"loginPw={RANDOM}",  # camelCase's words
        f"basicAuth: {RANDOM}",
        f"smtpPass: {RANDOM}",
        # a long line is read in windows (windows.py): the names are found there too
        "x" * 300 + f' "pass": "{RANDOM}"',
        f"<auth>{RANDOM}</auth>",  # an element's text (markup.py)
        f'<add key="login_pw" value="{RANDOM}"/>',
    ],
)
def test_a_short_name_given_a_random_value_is_refused(text: str) -> None:
    assert found(text) == [RANDOM]


def test_a_docker_config_auth_is_refused() -> None:
    auth = "ZGV2dXNlcjpacThxVDJtVzlwTHE="  # base64 of `devuser:Zq8qT2mW9pLq`
    assert found(f'      "auth": "{auth}"') == [auth]


@pytest.mark.parametrize(
    "text",
    [
        "      pass: received.startsWith(prefix),",  # a Jest matcher's result
        "        pass: true,",
        "  auth: oauth2",
        '  "auth": "none"',
        "auth=self.auth",
        f"bypass={RANDOM}",
        f"oauth={RANDOM}",
        f"pass_through: {RANDOM}",
        "PWD=/home/bob/src",
        "  requireAuth: true",
        "  useAuth: useAuthProvider,",
        f"BASICAUTH={RANDOM}",  # no word's case change
        "pw = getpass.getpass()",
        # PowerShell's cmdlets (`$password = ConvertTo-SecureString` was refused before)
        "$password = ConvertTo-SecureString $env:DEPLOY_PW -AsPlainText",
        "$pw = Read-Host -AsSecureString",
        "$token = Get-AzAccessToken",
    ],
)
def test_other_names_and_no_values_pass(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize("value", ["-ZqvTmWpLqXk", "-qwErTyUiOpAs", "--ZqvTmWpLqXk"])
def test_random_letters_led_by_a_dash_are_refused(value: str) -> None:
    assert found(f"password = {value}") == [value]
    assert found(f'password = "{value}"') == [value]


@pytest.mark.parametrize(
    "value",
    ["-DskipTests", "-XstartOnFirstThread", "-XXUseConcMarkSweepGC", "--password-stdin"],
)
def test_an_option_led_by_a_dash_passes(value: str) -> None:
    assert found(f"password = {value}") == []


@pytest.mark.parametrize(
    "text",
    [
        "initdb --auth=scram-sha-256 -D /var/lib/postgresql/data",  # PostgreSQL's own docs
        '      POSTGRES_INITDB_ARGS: "--auth-host=scram-sha-256 --auth-local=trust"',
        "auth: hmac-sha256",
        "auth = AWS4-HMAC-SHA256",
        '"auth": "us-east-1"',
        "basicAuth: tls-client-cert",
        "auth: OAuth2-PKCE",
        "auth: OpenID-Connect",
        "auth: mTLS-SPIFFE",
        "x" * 300 + " --auth=scram-sha-256",  # a long line, read in windows
        "<auth>scram-sha-256</auth>",  # an element's text (markup.py)
    ],
)
def test_a_method_given_to_auth_passes(text: str) -> None:
    """`auth` names a method as often as a credential: each was refused since it was read."""
    assert found(text) == []


@pytest.mark.parametrize(
    "value", [RANDOM, "Zq8vT2-mW9pLqXk", "ZqvTmWpLqXk-v2", "admin:Zq8vT2mW9pLq"]
)
def test_a_credential_given_to_auth_is_refused(value: str) -> None:
    assert found(f"auth: {value}") == [value]


@pytest.mark.parametrize(
    "text",
    [
        "--- PASS: TestLoginFlow2 (0.00s)",  # go test -v
        "--- PASS: TestAuth/case_2 (0.01s)",
        "PASS: tests/test_auth.py::test_login2",
        "PASS: src/auth/login.test.ts",
        "    PASS: login_flow_v2",
        "- pass: test_checkout_v2 (3.2s)",
        '{"pass": "test_case_17b"}',
    ],
)
def test_a_test_s_verdict_passes(text: str) -> None:
    """A coding agent's notes hold test runs: each was refused since `pass` was read."""
    assert found(text) == []


@pytest.mark.parametrize("text", [f"export PASS={RANDOM}", f"PASS: {RANDOM}", f"pass: {RANDOM}"])
def test_a_random_value_after_pass_is_refused(text: str) -> None:
    assert found(text) == [RANDOM]


def test_a_password_after_pass_in_an_env_file_is_refused() -> None:
    """`PASS=` assigns: only `PASS:` is a test's verdict."""
    assert found("PASS=Summer2024!") == ["Summer2024!"]
