"""Holes a review of the secret check found, each with its neighbours (other names, quoting,
spacing): passwords an exception let through, and ordinary prose and code refused. Each
exception is kept for what it was made for."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets

RANDOM = "Zq8vT2mW9pLq"


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('password = "en_US.Zq8vT2mW9pL"', "en_US.Zq8vT2mW9pL"),
        ('api_key: "de_DE.Xk9mQ2vL7pRt"', "de_DE.Xk9mQ2vL7pRt"),
        ("token = config.Zq8vT2mW9pLq", "config.Zq8vT2mW9pLq"),
        ("secret: 'C.Zq8vT2mW9pLqX'", "C.Zq8vT2mW9pLqX"),
        ("DB_PASSWORD=en_US.Zq8vT2mW9pL", "en_US.Zq8vT2mW9pL"),
    ],
)
def test_a_random_part_after_a_dot_is_no_members_name(text: str, secret: str) -> None:
    """`settings.password` is a reference; a part with two runs of digits between its
    letters is a random string's, whatever is before its dot (a locale's name)."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "password = settings.DB_PASSWORD",
        "token: self.s3Client.token",
        "password = en_US.UTF-8",
        "api_key = app.config.oauth2Key",
        "token = k8s.v1beta1.token",
        "password=secrets.GITHUB_TOKEN",
        "token = os.environ",
    ],
)
def test_a_members_name_stays_a_reference(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('db_password = "Passw0rd(x)"', "Passw0rd(x)"),
        ("password: P4ssword(abc)", "P4ssword(abc)"),
        ("secret='s3cretPass(k)'", "s3cretPass(k)"),
        ('api_key = "Adm1nistrator(x)"', "Adm1nistrator(x)"),
        ("DB_PASSWORD=Passw0rd(x)", "Passw0rd(x)"),
    ],
)
def test_a_digit_for_the_letter_it_looks_like_is_a_password_given_an_argument(
    text: str, secret: str
) -> None:
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "password = b64encode(raw)",
        "token = s3client(cfg)",
        "password = sha1sum(data)",
        "token = md5sum(x)",
        "password = log1p(x)",
        "secret = vec3f(x)",
        "token = oauth2client(config)",
    ],
)
def test_a_function_named_with_a_digit_given_an_argument_is_a_call(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        f"secret=ab&cd={RANDOM}",
        f"SECRET=ab&cd={RANDOM}",
        f"password=abc&x={RANDOM}",
        f"GITHUB_TOKEN=ab&cd={RANDOM}",
        f"secret=ab&cd=ef&gh={RANDOM}",
        f"export DB_PASSWORD=hunter&zz={RANDOM}",
    ],
)
def test_the_pairs_after_a_secrets_word_outside_a_query_string_are_judged(text: str) -> None:
    """Read as a query string (the first pair gives a word), the value after the next pair
    was no one's; read as one value, it was cut: either way a secret went through."""
    assert found(text) == [RANDOM]


@pytest.mark.parametrize(
    "text",
    [
        "token_type=bearer&grant_type=password",
        "token_type=bearer&expires_in=3600&scope=read",
        "secret=ab&cd=ef",
        "password=on&remember=true",
        f"name=ab&cd={RANDOM}",
    ],
)
def test_a_query_strings_plain_pairs_stay_apart(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"password: ${{resolve:ssm:/x}}{RANDOM}", f"${{resolve:ssm:/x}}{RANDOM}"),
        (f'password = "${{X}}{RANDOM}"', f"${{X}}{RANDOM}"),
        (f'password: "{{{{resolve:ssm:/x}}}}{RANDOM}"', f"{{{{resolve:ssm:/x}}}}{RANDOM}"),
        (f"password = {RANDOM}${{X}}", f"{RANDOM}${{X}}"),
        (f"GITHUB_TOKEN=${{X}}{RANDOM}", f"${{X}}{RANDOM}"),
        (f"POSTGRES_PASSWORD: ${{PG_PW:-{RANDOM}}}", f"${{PG_PW:-{RANDOM}}}"),
        (f"DB_PASSWORD=${{DB_PASSWORD-{RANDOM}}}", f"${{DB_PASSWORD-{RANDOM}}}"),
        (f"password: ${{resolve:ssm:/x}} {RANDOM}", RANDOM),
        (f"token = {{{{ vault_token }}}} {RANDOM}", RANDOM),
    ],
)
def test_a_literal_beside_a_templates_reference_is_judged(text: str, secret: str) -> None:
    """What is written beside a reference, or as its default, is written in the note."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        'token: "{{ vault_token }}"',
        "password: ${DB_PASSWORD}",
        "password: ${DB_PASSWORD:-changeme}",
        "password: ${DB_PASSWORD:?set DB_PASSWORD}",
        "password: ${DB_PASSWORD} # the CI's",
        "password: ${DB_PASSWORD} is read from the environment at start",
        "DB_PASSWORD_URL=jdbc:postgresql://${HOST}:5432/db",
        "secret_name: ${env}-db-password",
        "api_key: ${PREFIX}_production_key",
        'password: "{{resolve:secretsmanager:MySecret:SecretString:password}}"',
        "token: ${{ secrets.GITHUB_TOKEN }}",
    ],
)
def test_a_templates_reference_alone_is_none(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("cacheToken = !zqvtmwplxk", "!zqvtmwplxk"),
        ("cacheToken=!zqvtmwplxk", "!zqvtmwplxk"),
        ("maskToken = !xkcdqwrtp", "!xkcdqwrtp"),
        ("savePassword = !letmein", "!letmein"),
        ("rememberPassword = !sunshine", "!sunshine"),
        ("password = !letmein", "!letmein"),
        ("password = !letmein,", "!letmein"),  # a list's next item after it
        ("savePassword = !letmein;", "!letmein"),
        ("password => !letmein,", "!letmein"),  # Ruby's, Perl's hash
        ("PASSWORD=!letmein", "!letmein"),
        ("db_password: letmein!", "letmein!"),
        ("password: iloveyou2", "iloveyou2"),
    ],
)
def test_no_variable_is_named_as_a_common_password_or_without_a_vowel(
    text: str, secret: str
) -> None:
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "maskPassword = !unmasked",
        "savePassword = !incognito",
        "isSecret = !isPublic",
        "cacheToken = !isCached",
        "saveToken = !readonly",
        "keepSecret = !options.insecure;",
        "savePassword = !incognito;",
        "password = !isPublic,",
        "password = sunshine",  # one word of small letters, judged as any value
    ],
)
def test_a_flags_negation_stays_code(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        'pwd: "@/projects/app2"',
        'password: "@/lib/db2"',
        "passwd = '@/src/app2/config'",
        "pwd: @/projects/app2",
        "<password>@/projects/app2</password>",
    ],
)
def test_a_path_from_the_projects_alias_is_no_password(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    ['password: "@hunter/hunter2"', 'pwd: "@admin/admin@123"', 'password: "@/hunter2"'],
)
def test_a_scope_and_a_word_with_digits_stay_a_persons_password(text: str) -> None:
    assert found(text) == [text.split(" ", 1)[1].strip('"')]


@pytest.mark.parametrize(
    "text",
    [
        'storeSecret("prod/db-password", value)',
        "store_secret('staging/api-key', v)",
        'setPassword("prod/db-password", pw)',
        'put_secret("team/ci-token", x)',
        'secret_id = "projects/acme/secrets/api-key/versions/3"',
        "password: db-password",
        "SECRET_NAME=prod/db-password",
    ],
)
def test_a_secrets_name_in_a_store_is_no_secret(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f'storeSecret("{RANDOM}")', RANDOM),
        ('setPassword("hunter2-Zq8vT2")', "hunter2-Zq8vT2"),
        ('password = "correct-horse-battery-staple"', "correct-horse-battery-staple"),
        (f'api_key: "prod/{RANDOM}"', f"prod/{RANDOM}"),
    ],
)
def test_a_value_beside_a_store_name_is_still_judged(text: str, secret: str) -> None:
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "filter=credentials%3Ais_expired%3Dtrue",
        "filter=credentials:is_expired=true",
        "credentials: is_expired=true",
        "q=token%3Astatus%3Dactive",
        "where=password%3Aupdated_at%3E%3D2024",
        "credentials: is_expired:true",
        "token: expires:3600",
    ],
)
def test_a_condition_is_no_secret(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"filter=credentials%3Aowner%3D{RANDOM}", f"owner%3D{RANDOM}"),
        (f"credentials: user={RANDOM}", f"user={RANDOM}"),
        (f"filter=token%3A{RANDOM}", RANDOM),
        ("credentials: admin:letmeinnow", "admin:letmeinnow"),  # a user and a password
    ],
)
def test_a_random_value_in_a_condition_is_still_judged(text: str, secret: str) -> None:
    assert found(text) == [secret]
