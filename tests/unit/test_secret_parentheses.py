"""A password that holds a parenthesis (`P@ss(w0rd)`) was read as a reference, as a call is,
and, short and full of signs, as too random for none (the library's entropy over the base64
alphabet: 2.1). A call, its start and a value in parentheses stay references."""

from __future__ import annotations

import pytest

from memidx.secrets import library
from memidx.secrets.detect import find_secrets
from memidx.secrets.values import looks_secret


@pytest.mark.parametrize(
    "text", ['password = "P@ss(w0rd)"', "DB_PASSWORD=P@ssw0rd(2024)!", "secret: 'Zq8!(vT2)mW9'"]
)
def test_a_password_holding_parentheses_is_found(text: str) -> None:
    value = text.rsplit("=" if "=" in text else ": ", maxsplit=1)[-1].strip("\"' ")

    assert [text[f.start : f.end] for f in find_secrets(text)] == [value]


@pytest.mark.parametrize(
    "text",
    [
        'password = os.getenv("DB_PASSWORD")',
        "password: getpass.getpass()",
        'password = env::var("DB_PASS").unwrap()',
        "secret_key = secrets.token_hex(32)",
        "password = Password.create(params[:password])",  # a call's start, read to a space
        "password = (hidden)",
        'api_key = config("API_KEY", cast=str)',
        "password = '%(db_password)s'",
        # code on this machine, refused once a parenthesis was no reference of itself
        "def strip_html_tags(s: str, l: int, tokens: ParseResults):",
        "def tokenize(readline, tokeneater=printtoken):",
        "token_number = self.tokens_taken+len(self.tokens)",
        "f.write('machine foo.domain.com login bar password pass')",
    ],
)
def test_a_call_or_a_value_in_parentheses_is_no_secret(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    ("value", "secret"),
    [("P@ss(w0rd)", True), ("Tr0ub4dor&3", True), ("aA1!aA1!aA1!", False), ("Ab1!Ab1!", False)],
)
def test_a_value_of_four_kinds_of_characters_needs_less_entropy(value: str, secret: bool) -> None:
    """Each sign lowers the library's measure: four kinds need 2.0 (five different ones)."""
    assert looks_secret(value, library.entropy()) is secret
