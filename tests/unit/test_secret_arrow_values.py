"""An unquoted value after `=>` (Ruby's, Perl's and PHP's hashes): the library's `=>` rule
wants quotes, and memidx read a bare value after `=>` only for its own names (`token =>`),
so `password => hunter2x9Q` went through where `password = hunter2x9Q` and `password:
hunter2x9Q` were refused. A bare value after `=>` is judged as one after `=` is; an arrow
function's body, a match arm's path, a reference, `nil` and a placeholder are none."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets
from tests.cpu_cost import least_ratio


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password => hunter2x9Q", "hunter2x9Q"),
        ("password=>hunter2x9Q", "hunter2x9Q"),
        (":password => s3cr3tPassw0rd,", "s3cr3tPassw0rd"),  # Ruby's symbol
        ("'password' => s3cr3tPassw0rd,", "s3cr3tPassw0rd"),  # PHP's array
        ('"db_password" => hunter2x9Q', "hunter2x9Q"),
        ("'api_key' => AKfooZq8vT2mW9pLqXk7R,", "AKfooZq8vT2mW9pLqXk7R"),
        ("my %db = (user => 'bob', password => Zq8vT2mW9pLq);", "Zq8vT2mW9pLq"),  # Perl
        ("{ :user => 'bob', :secret => Zq8vT2mW9pLqXk7R }", "Zq8vT2mW9pLqXk7R"),
        ("client_secret => correctHorseBattery", "correctHorseBattery"),
        ("password => Summer2024!", "Summer2024!"),
        ("password => iloveyou2", "iloveyou2"),
        ("password => aws-iam-identity-center", "aws-iam-identity-center"),  # a passphrase
        ("password => _Zq8vT2mW9pLqXk7R", "_Zq8vT2mW9pLqXk7R"),  # no field's name
        ("password = _hunter2x9Q", "_hunter2x9Q"),
        ("'db.password' => hunter2x9Q,", "hunter2x9Q"),  # a quoted key, a hash's
        ('"db.token" => Zq8vT2mW9pLqXk7R', "Zq8vT2mW9pLqXk7R"),
    ],
)
def test_an_unquoted_value_after_an_arrow_is_judged(text: str, secret: str) -> None:
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "the password => prompt asks for it again",
        "x => x + 1",
        "const add = (x) => x + 1",
        "password => nil",
        "password => undef,",
        "password => null",
        "password => ENV['X']",
        "'password' => ENV.fetch('DB_PASSWORD'),",
        "'password' => env('DB_PASSWORD'),",
        "'password' => Hash::make('password'),",
        "'password' => $password,",
        "password => $ENV{DB_PASS},",
        'password => "changeme"',
        "password => changeme",
        "password => your_password_here",
        "password => YOUR_PASSWORD",
        "passwords.map(password => hash(password))",
        "secrets.forEach(secret => secret.trim())",
        "const valid = password => password.length >= 8",
        "onChange={password => setPassword(password)}",
        "apiKey => apiKey",
        "public string Password => _password;",  # C#'s property, a private field's name
        "public string ClientSecret => _clientSecret;",
        "Password = _password;",
        "self._db_password = __password",
        "Kind::Secret => SecretKind::Generic,",  # a match arm's path
        "Token::ApiKey => Scheme::BearerHeader2,",
        "Kind.Password => PasswordHasher2,",  # C#'s switch expression's arm, Scala's case
        "SecretKind.ApiKey => ApiKeyCredential,",
        "AuthMode.Token => TokenCredential2,",
        "password => {",
        "password =>",
    ],
)
def test_an_arrow_to_code_or_a_placeholder_passes(text: str) -> None:
    assert found(text) == []


def test_a_run_of_arrows_is_read_once() -> None:
    """Each value after `=>` is read up to the next `=>`: read to the run's end from each name,
    `password=>` repeated took 4.4 s of CPU for 40 KB (a value taken for a field's name is
    read again from the next name), quadratic. 8x the text: 8x the time."""
    piece = "password=>"
    small, large = piece * (8_000 // len(piece)), piece * (64_000 // len(piece))
    ratio, ratios = least_ratio(
        lambda: find_secrets(large, allow=True),
        lambda: find_secrets(small, allow=True),
        below=24,
    )
    assert ratio < 24, ratios
