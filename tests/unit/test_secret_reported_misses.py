"""Secrets the last review found let through: a URL's password holding `%s`, a query's
last pair in an encoded query, strings given inside a call or a tuple, a random piece a
format joins to a reference, and a short common password after `password:`."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets, redact_text


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("DATABASE_URL=postgres://app:wibw891LIW%scQH@db", "wibw891LIW%scQH"),
        ("postgres://app:wibw891LIW%dcQH@db:5432/app", "wibw891LIW%dcQH"),
        ("machine api.internal\n  login deploy\n  password qzmb934NCE%sUBe", "qzmb934NCE%sUBe"),
    ],
)
def test_a_percent_s_inside_a_password_is_no_format_reference(text: str, secret: str) -> None:
    """`%s` before a letter is a password's, not a format's reference (the labeled set's one
    miss: a `.netrc` password and a URL's, let through)."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "printf('postgres://%s:%s@db', user, pw)",
        "url = 'postgres://app:%s@db' % password",
        "DSN = 'postgres://%(user)s:%(password)s@db'",
    ],
)
def test_a_formats_reference_is_still_no_password(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        'auth = HTTPDigestAuth("user", "Zq8vT2mW9pLq")',
        'auth=("user", "Zq8vT2mW9pLq")',
        'r = requests.get(url, auth=("user", "Zq8vT2mW9pLq"))',
        'requests.get(url, auth=HTTPBasicAuth("user", "Zq8vT2mW9pLq"))',
        'session.auth = aiohttp.BasicAuth("deploy", "Zq8vT2mW9pLq")',
        "basic_auth=('elastic', 'Zq8vT2mW9pLq')",
        'token = ("Zq8vT2mW9pLq")',
    ],
)
def test_a_password_given_in_a_call_or_a_tuple_is_refused(text: str) -> None:
    """An HTTP client's user and password, in a tuple or an `*Auth` call: the password was
    let through (no word of held.HELD_WORDS names it); the user's name is no secret."""
    assert found(text) == ["Zq8vT2mW9pLq"]


@pytest.mark.parametrize(
    "text",
    [
        "auth=(user, password)",
        'auth=("user", password)',
        'auth=("admin", os.environ["PW"])',
        'auth=("user", "${PW}")',
        'auth = HTTPBasicAuth("user", getpass())',
        'basic_auth=("elastic", "changeme")',
        'get_auth("user", "realm-2")',
        'password = ("a" if x else "b")',
        'headers = ("Authorization", "Bearer x")',
    ],
)
def test_names_and_placeholders_in_an_auth_tuple_pass(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "q=secret%3Dab%26cd%3Dxy%26ef%3DZq8vT2mW9pLqXk",
        "https://x.example/cb?q=secret%3Dab%26cd%3Dxy%26ef%3DZq8vT2mW9pLqXk&page=2",
        "q=secret=ab&cd=xy&ef=Zq8vT2mW9pLqXk",
        "q=secret=ab&cd=xy&ef=gh&ij=Zq8vT2mW9pLqXk",
    ],
)
def test_the_last_pair_of_a_parameters_pairs_after_a_secret_is_masked(text: str) -> None:
    """A parameter's value that is itself pairs opened by a secret-sounding name (a query
    inside a URL's parameter, encoded): every pair after the name is masked, the last too."""
    assert "Zq8vT2mW9pLqXk" not in redact_text(text).text


def test_a_query_strings_own_pairs_are_still_apart() -> None:
    text = "https://x.example/cb?secret=ab&cd=Zq8vT2mW9pLqXk"
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "  TOKEN: ${{ format('{0}-{1}', github.ref, 'Zq8vT2mW9pL') }}",
        '  password: {{ printf "%s-%s" .Values.name "Zq8vT2mW9pL" }}',
        "  TOKEN: ${{ format('{0}-{1}', github.ref, 'k7Pq2xW9') }}",
    ],
)
def test_a_random_piece_under_12_characters_joined_to_a_reference_is_refused(text: str) -> None:
    """A format's random piece of 8 to 11 characters was let through (12 at least were
    judged), though every value of 8 is judged elsewhere."""
    assert len(found(text)) == 1


@pytest.mark.parametrize("piece", ["deploy2prod", "ubuntu22x04", "node18v20", "build2024v3"])
def test_a_names_piece_under_12_characters_still_passes(piece: str) -> None:
    assert found(f"  TOKEN: ${{{{ format('{{0}}-{{1}}', github.ref, '{piece}') }}}}") == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password: hunter2", "hunter2"),
        ("DB_PASSWORD=hunter2", "hunter2"),
        ('"password":"abc123"', "abc123"),
        ("userPassword: s3cr3t", "s3cr3t"),
        ("The default password: 123456", "123456"),
        ("  pw: 'Tr0ub4'", "Tr0ub4"),
    ],
)
def test_a_short_password_given_to_a_persons_password_is_refused(text: str, secret: str) -> None:
    """4 to 7 characters of letters and digits after `password:` were too short to judge
    and let through; given a person's password by name, they are one as written."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "password: string",
        "password: str = Field(...)",
        "password: required",
        "password: ${PW}",
        "password: <pw1>",
        "password: changeme",
        "password: pass123",
        "pwd: sha256",
        "password: v1.2.3",
        "bypass: abc123",
        "password_length: 12345",
        "token: abc123",
    ],
)
def test_words_placeholders_and_other_names_short_values_pass(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize("text", ["password: &id001", 'DbPassword: !Base64 "Zq8vT2mW9pL"'])
def test_a_yaml_anchor_or_tag_is_no_short_password(text: str) -> None:
    assert "&id001" not in found(text) and "!Base64" not in found(text)
