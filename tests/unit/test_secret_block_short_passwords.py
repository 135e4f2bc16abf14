"""A short password below its YAML key: a literal or folded block (`password: |`, `>-`) or a
plain value on the next line (`password:` over `  hunter2`). On the key's line
(`password: hunter2`) a person's password is refused from 4 characters (short.py); below
it, every value was judged from 8 characters on, so the same password went through. Below a
password's name it is read as on the key's line; the same words and quantities pass."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password: >-\n  hunter2\n", "hunter2"),
        ("password: |\n  abc123\n", "abc123"),
        ("password: |-\n  123456\n", "123456"),
        ("password: >\n  12345678\n", "12345678"),
        ("password:\n  s3cr3t\n", "s3cr3t"),
        ("db:\n  PGPASSWORD: |\n    hunter2\n", "hunter2"),
        ("- db_password: >-\n    hunter2\n", "hunter2"),
        ('"passwd": |+\n  abc123\r\n', "abc123"),
        ("pass: >- # rotated\n  hunter2\n", "hunter2"),
        ("password_confirm: |\n  hunter2\n", "hunter2"),
        ("userPassword:\n  hunter2  # the old one\n", "hunter2"),
        ("PASS: |\n  Zq8vT2mW9pLqXk7R\n", "Zq8vT2mW9pLqXk7R"),  # no test's verdict
        ('password:\n  "hunter2"\n', '"hunter2"'),  # quoted, as `password: "hunter2"` is
        ("password:\n  'abc123'  # the old one\n", "'abc123'"),
        ("password:\n  # rotated in May\n  hunter2\n", "hunter2"),  # a comment above it
        ("password:\n# at the margin\n  Zq8vT2mW9pLqXk7R\n", "Zq8vT2mW9pLqXk7R"),
        ("password:\n  #\n  - Zq8vT2mW9pLqXk7R\n", "Zq8vT2mW9pLqXk7R"),
    ],
)
def test_a_short_password_below_its_key_is_refused(text: str, secret: str) -> None:
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "password: |\n  string\n",  # a schema's type
        "password: >-\n  required\n",
        "password: |\n  changeme\n",
        "password: |\n  xxxx1\n",
        "pwd: |\n  sha256\n",  # an algorithm
        "password: >-\n  utf8\n",
        "password: |\n  8080\n",  # a port
        "password: |\n  v1.2.3\n",
        "first_pass: >-\n  500ms\n",  # a quantity
        "pass: |\n  test_1\n",  # a test's name, as `pass: test_1` is
        "pass: |\n  test_login2\n",  # a longer one, judged from 8 characters, too
        "pass:\n  tests/test_auth.py\n",
        "pass:\n  [test_login2]\n",
        "max_password: |\n  1000\n",  # a count
        "token: |\n  abc123\n",  # no person's password: judged from 8 characters
        "api_key:\n  hunter2\n",
        "password:  # memidx: allow-secret\n  # rotated\n  hunter2\n",  # the marker's value
        "password: |\n  # hunter2\n",  # a block's line, prose
        'password:\n  "string"\n',
        "password:\n  \"hunter2'\n",  # no quotes of one kind
        "password: |\n  hunter2 is what\n  the old one was\n",  # prose
    ],
)
def test_other_short_values_below_a_key_pass(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        ("password:\n  - hunter2\n", ["hunter2"]),
        ("passwords:\n  - hunter2\n  - s3cret!\n", ["hunter2", "s3cret!"]),
        ("db:\n  password:\n    - abc123\n", ["abc123"]),
        ("- password:\n  - hunter2\n", ["hunter2"]),  # a list item's key, its list at its column
        ('password:\n  - "hunter2"\n', ['"hunter2"']),
        ("PGPASSWORD:\n  - 12345678\n", ["12345678"]),
        ("passwords: [hunter2, s3cret!]\n", ["hunter2", "s3cret!"]),
        ('passwords: ["hunter2", "s3cret!"]\n', ['"hunter2"', '"s3cret!"']),
        ("password: [hunter2]\n", ["hunter2"]),
        ("password:\n  [hunter2, abc123]\n", ["hunter2", "abc123"]),
        ("password:\n  - [hunter2]\n", ["hunter2"]),
        ("user_passwords:\n  - hunter2  # the old one\n", ["hunter2"]),
    ],
)
def test_a_short_password_in_a_list_below_its_key_is_refused(text: str, secrets: list[str]) -> None:
    """A list's items and a flow sequence's entries given to a password's key are read as a
    scalar below it is (short.short_below): each was judged from 8 characters on."""
    assert found(text) == secrets


@pytest.mark.parametrize(
    "text",
    [
        "password:\n  - string\n  - required\n",  # words
        "passwords: [string, required]\n",
        "password:\n  - xxxx1\n  - ${DB_PASSWORD}\n",  # a placeholder, a reference
        "password:\n  - sha256\n  - 8080\n",  # an algorithm, a port
        "password: [user: hunter2]\n",  # a mapping's entry: its own key names it
        "password: {value: abc123}\n",
        "tokens: [abc123]\n",  # no person's password: judged from 8 characters
        "password_rules:\n  - min8\n",
        "max_password:\n  - 1000\n",  # a count
        "pass:\n  - test_1\n",  # a test's name
        "auth:\n  - admin\n  - hunter2\n",  # no password's name
    ],
)
def test_other_short_values_in_a_list_below_a_key_pass(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("secret: |\n  password:\n    hunter2\n", "hunter2"),
        ("auth: |\n  password: |\n    hunter2\n", "hunter2"),
        ("credentials: |\n  passwords:\n    abc123\n", "abc123"),
        ("secret: |\n  password:\n    aws-iam-identity-center\n", "aws-iam-identity-center"),
    ],
)
def test_a_value_below_two_keys_is_judged_for_each(text: str, secret: str) -> None:
    """A line a block's key (`secret: |`) reads and a password's key below it reads too was
    judged once by where it starts: the outer key's verdict (no password's name: no short
    password, a cloud's words a name) let it through for both."""
    assert found(text) == [secret]
