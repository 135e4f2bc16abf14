"""Holes the sixth review of the secret check found: passwords let through (a template's
function given a literal, a common password with a sentence's `.` or an option's `-`, a
shell's word after a quoted reference), English refused (a flag negated, an instance type,
a store's versioned name, a flag's name in a filter), and values of query pairs left shown."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets, redact_text

RANDOM = "Zq8vT2mW9pLq"


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    "text",
    [
        f'password: {{{{ printf "%s" "{RANDOM}" }}}}',
        f'password: {{{{ coalesce .x "{RANDOM}" }}}}',
        f'password: {{{{ ternary "a" "{RANDOM}" true }}}}',
        f"password: ${{{{ format('{{0}}', '{RANDOM}') }}}}",
        f'api_key: "{{{{ printf "%s" "{RANDOM}" }}}}"',
        f'token: {{{{- b64enc (printf "%s" "{RANDOM}") -}}}}',
        f'password: {{{{ .Values.x | default "{RANDOM}" }}}}',
    ],
)
def test_a_literal_a_templates_function_is_given_is_judged(text: str) -> None:
    """Helm's printf, coalesce, ternary and an Actions expression's format() make a value of
    their literals: only `default`, `||` and an opening literal were judged."""
    assert found(text) == [RANDOM]


@pytest.mark.parametrize(
    "text",
    [
        "password: {{ lookup('password', '/tmp/pw chars=ascii_letters') }}",
        "password: {{ lookup('aws_ssm', '/db/pw', region='eu-west-1') }}",
        'password: {{ required "a password is required" .Values.pw }}',
        'password: {{ env "DB_PASSWORD" }}',
        'password: {{ include "mychart.fullname" . }}',
        "password: ${{ hashFiles('**/package-lock.json') }}",
        "token: ${{ github.ref == 'refs/heads/main' && secrets.A || secrets.B }}",
        "token: ${{ 'refs/heads/main' != github.ref && secrets.A }}",
        'password: {{ printf "%s-%s" .Values.a .Values.b }}',
    ],
)
def test_a_templates_lookup_message_or_comparison_is_no_value(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password = letmein.", "letmein."),
        ("Default password: sunshine.", "sunshine."),
        ("password = -letmein", "-letmein"),
        ('password: "-letmein"', "-letmein"),
        (f"password = -{RANDOM}", f"-{RANDOM}"),
        (f"db_password: -{RANDOM}", f"-{RANDOM}"),
        (f'password: "${{X}}"{RANDOM}', RANDOM),
        (f"password: '${{X}}'{RANDOM}", RANDOM),
    ],
)
def test_a_common_password_with_a_sign_or_a_word_after_a_quoted_reference(
    text: str, secret: str
) -> None:
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "password = --password-stdin",
        "password = -Xmx512m",
        "password = -p",
        "token_owner: @jennifer.",
        "password = $letmein1",
        'password: "${X}"',
        'password: "${X}" # set in CI',
        # by choice: a word in small letters alone is judged as any (README), and only the
        # first word of prose after a name is its value
        "password = letmein",
        f"password: abc {RANDOM}",
    ],
)
def test_an_option_a_mention_or_a_variable_is_no_common_password(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "showPassword = !computer",
        "hasToken = !internet;",
        "token = ec2.t3a2xlarge",
        "api_key: aws.m5d4xlarge",
        "password: {{ secret('db_password_v2') }}",
        "{{ secret('db_password_v2') }}",
        'secret("DB_PASSWORD_V2")',
        "password = vault.read('prod/db-password-v2')",
        "filter=password%3Ais_expired",
        "see https://x.example/?filter=password%3Ais_expired&sort=name",
        "password = isExpired",
    ],
)
def test_english_and_code_no_secret_is_refused(text: str) -> None:
    """A flag negated (`computer` is a variable's name as much as a password), an instance
    type, a store's name with its version, a flag's name a filter tests."""
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("savePassword = !letmein", "!letmein"),
        ("password = !computer", "!computer"),
        ("token = cfg.hq7x3krtlm", "cfg.hq7x3krtlm"),
        ("token = cfg.Hq7Xkrt3Lm", "cfg.Hq7Xkrt3Lm"),
        ("password = hunter_v2x9Q", "hunter_v2x9Q"),
        ("password = summer_pass_2024", "summer_pass_2024"),
        ("password = is_Zq8vT2mW9pLq", "is_Zq8vT2mW9pLq"),
    ],
)
def test_their_neighbours_stay_refused(text: str, secret: str) -> None:
    assert found(text) == [secret]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            f"secret={RANDOM}&cd=Xk9mQ2zP7vLqW4&ef=Wq7tR3nB8xKz",
            "secret=[REDACTED:secret-assignment]&ef=[REDACTED:secret-assignment]",
        ),
        (
            f'body = "secret=ab&cd={RANDOM}&ef=Xk9mQ2zP7vLqW4"',
            'body = "secret=[REDACTED:secret-assignment]&ef=[REDACTED:secret-assignment]"',
        ),
        (
            f"curl -d 'secret=ab&cd={RANDOM}&ef=Xk9mQ2zP7vLqW4' https://x.example",
            "curl -d 'secret=[REDACTED:secret-assignment]&ef=[REDACTED:secret-assignment]'"
            " https://x.example",
        ),
        (
            f"secret: ab&cd={RANDOM}&ef=Xk9mQ2zP7vLqW4",
            "secret: [REDACTED:secret-assignment]&ef=[REDACTED:secret-assignment]",
        ),
        (
            f"secret=ab&cd={RANDOM}&ef=ab&gh=Xk9mQ2zP7vLqW4",
            "secret=ab&cd=[REDACTED:secret-assignment]&ef=ab&gh=[REDACTED:secret-assignment]",
        ),
    ],
)
def test_every_pairs_value_after_a_secret_name_is_masked(text: str, shown: str) -> None:
    """Each value found in the pairs a secret-sounding name's value holds is masked, not only
    the first run: the last pair's value was let through."""
    assert redact_text(text, allow=True).text == shown


@pytest.mark.parametrize(
    "text",
    [
        "https://x.example/cb?access_token=ab&state=Xk9mQ2zP7vLqW4",
        "see https://x.example/?q=token&page=2&sort=Xk9mQ2zP7vLqW4",
    ],
)
def test_a_query_strings_pairs_stay_their_own(text: str) -> None:
    assert found(text) == []
