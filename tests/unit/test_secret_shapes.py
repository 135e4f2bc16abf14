"""Values a reviewer found the detector misread by their shape: a password taken for a call, a
path, a YAML tag or anchor, or code's negation was let through; a selector, a package or a
getter's argument was refused. Each is decided by its shape, the other side kept."""

from __future__ import annotations

import random
import string

import pytest

from memidx.secrets.detect import find_secrets
from tests.cpu_cost import least_ratio


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password: Tr0ub4dor(3)", "Tr0ub4dor(3)"),
        ("DB_PASSWORD=Passw0rd(1)", "Passw0rd(1)"),
        ("password = s3cr3tP4ss()", "s3cr3tP4ss()"),
        ("postgres://app:Tr0ub4dor(3)@db/app", "Tr0ub4dor(3)"),
    ],
)
def test_a_password_shaped_as_a_call_is_found(text: str, secret: str) -> None:
    """Digits between a word's letters, given digits or nothing: no function's call."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "token = b64encode(raw)",
        "secret = generate_password(16)",
        "key = sha256(1)",
        "token = secrets.token_hex(32)",
        "password = getpass()",
    ],
)
def test_a_call_stays_a_reference(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('token: "@zq8xq2/abcdef"', "@zq8xq2/abcdef"),
        ("password=!Zq8/abcdef", "!Zq8/abcdef"),
        ("DB_PASSWORD=&Zq8v/T2mW", "&Zq8v/T2mW"),
        ("api_key: '@x7k2m9/zq8vt2'", "@x7k2m9/zq8vt2"),
    ],
)
def test_a_password_holding_a_slash_is_no_path(text: str, secret: str) -> None:
    """`!`, `&`, `=`, `|`, `?` lead no path, and a random name (letters between digits) is
    no package's nor folder's."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        'secret: "@/lib/OAuth2Client"',
        'secret: "@azure/keyvault-secrets@4.7.0"',
        'token: "@aws-sdk/client-s3@3.400.0"',
        'secret: "@noble/ed25519"',
        'token: "@kubernetes/k8s-client"',
        'secret: "#/components/schemas/Token"',
    ],
)
def test_a_package_or_a_path_is_no_password(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password: !Welcome2024", "!Welcome2024"),
        ("password: &hunter22", "&hunter22"),
        ("password: &pw Zq8vT2mW9pL", "Zq8vT2mW9pL"),
        ("password: &pw 'Zq8vT2mW9pL'", "Zq8vT2mW9pL"),
        ("api_key: !!str Zq8vT2mW9pL", "Zq8vT2mW9pL"),
        ("password = !hunter22", "!hunter22"),
        ("db.password=!secretpass", "!secretpass"),
    ],
)
def test_a_password_led_by_a_yaml_or_a_code_sign_is_found(text: str, secret: str) -> None:
    """A tag's or an anchor's name has no digits (`&id001` is PyYAML's); a value after an
    anchor is the key's; a word and digits negated is no variable."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "password: !Ref DbSecret",
        "password: &default",
        "password: *default",
        "password: !!str",
        "password: &id001",
        "client_secret: &oidc_client_secret_value",
        "password: !vault |",
        "password: !secret wifi_password",
        "password: &pw ${DB_PASS}",
        "isSecret = !isPublic",
        "x = !enabled",
        "hasToken = !!user.token;",
        "isSecret=!isPublic",
        "showPassword=!this.showPassword",
    ],
)
def test_yaml_tags_anchors_and_code_negation_stay_no_secret(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize("text", ["PASSWORD={}", "password: {}", "GITHUB_TOKEN={}"])
@pytest.mark.parametrize("size", [250, 2_000])
def test_a_sign_led_value_over_200_characters_is_found(text: str, size: int) -> None:
    """The 200-character bound kept the reading of a sign-led run linear and let a longer
    value through: the run is read once whole now."""
    rng = random.Random(size)
    value = "!" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(size))
    assert found(text.format(value)) == [value]


@pytest.mark.parametrize(
    "unit", ["token=!", "password=!", "password:|", "password:&", "password: !", "secret=@a/"]
)
def test_sign_led_runs_are_read_in_linear_time(unit: str) -> None:
    """Each name of a run read its sign-led value to the run's end, and one not taken as a
    value was read again from the next name: `token=!` repeated to 100 KB took 30 s."""
    find_secrets("password=x1")  # the detectors loaded before timing
    small, large = (unit * (n // len(unit)) for n in (2_000, 32_000))
    least, ratios = least_ratio(lambda: find_secrets(large), lambda: find_secrets(small), below=64)
    assert least < 64, f"16x the text took {ratios}x the time"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('setCredentials("bob", "Zq8vT2mW9pL")', "Zq8vT2mW9pL"),
        ('SecretStr("Zq8vT2mW9pL")', "Zq8vT2mW9pL"),
        ('settings = Settings(db=SecretStr("Zq8vT2mW9pL"))', "Zq8vT2mW9pL"),
        ("PasswordBytes(b'Zq8vT2mW9pL')", "Zq8vT2mW9pL"),
    ],
)
def test_a_secret_given_to_a_credentials_setter_or_a_secret_type_is_found(
    text: str, secret: str
) -> None:
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        'withCredentials("include")',
        'getCredentials("bob@example.com")',
        'ToString("Zq8vT2mW9pL")',
        'SecretStr(os.environ["DB_PASSWORD"])',
    ],
)
def test_a_credentials_getter_or_another_type_is_given_no_secret(text: str) -> None:
    assert found(text) == []


TRIPLE = '"""'


def test_an_allow_marker_on_a_tripled_quotes_opening_line_allows_the_string_below() -> None:
    """As on a YAML key over its block (`password: |  # memidx: allow-secret`): the marker
    covered its own line only, and a token below it was refused."""
    token = "ghp_" + "a1B2" * 9
    text = (
        f"password = {TRIPLE}  # memidx: allow-secret\nZq8vT2mW9pLxK3\nAb9vT2mW9pLxK3\n{TRIPLE}\n"
        f"config = {TRIPLE}  # memidx: allow-secret\ntoken: {token}\n{TRIPLE}\n"
        'api_key = "Zq8vT2mW9pLxK3zz"\n'
    )
    assert found(text) == ["Zq8vT2mW9pLxK3zz"]


def test_a_comment_after_tripled_quotes_hides_no_value() -> None:
    """Without the allow (a turn is redacted so), the value below is read as before."""
    text = f"password = {TRIPLE}  # memidx: allow-secret\nZq8vT2mW9pLxK3\n{TRIPLE}  # end\n"
    assert [text[f.start : f.end] for f in find_secrets(text)] == ["Zq8vT2mW9pLxK3"]


@pytest.mark.parametrize(
    "text",
    [
        "<input :api-key=\"'Zq8vT2mW9pL'\">",
        "<my-client [apiKey]=\"'Zq8vT2mW9pL'\"></my-client>",
        "<c v-bind:password=\"'Zq8vT2mW9pL'\" />",
        "<c [attr.api-key]=\"'Zq8vT2mW9pL'\">",
    ],
)
def test_a_vue_or_angular_binding_of_a_string_literal_is_read(text: str) -> None:
    assert found(text) == ["Zq8vT2mW9pL"]


@pytest.mark.parametrize(
    "text", ['<c :api-key="apiKey">', "<c :title=\"'Zq8vT2mW9pL'\">", '<c [apiKey]="key$">']
)
def test_a_binding_of_a_variable_or_of_another_name_is_no_secret(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        'password_input = "#login-form"',
        'passwordField: "#signup-form"',
        'keyring.get_password("my-service", "bob")',
        'vault.read_secret("secret/data/prod/db")',
        'client.getPassword("my-service2")',
        'store.delete_token("ci-runner-7")',
    ],
)
def test_a_selector_or_a_getters_argument_is_no_secret(text: str) -> None:
    """A selector given to a name of an input, not of a secret; the name a getter is given
    (the library's `password("...")` rule read it as one)."""
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('password = "#login-form"', "#login-form"),
        ('password_input = "#Zq8vT2mW9pL"', "#Zq8vT2mW9pL"),
        ('password("Zq8vT2mW9pL")', "Zq8vT2mW9pL"),
        ('keyring.set_password("svc", "bob", "Zq8vT2mW9pL")', "Zq8vT2mW9pL"),
    ],
)
def test_a_password_beside_a_selector_or_a_getter_is_still_found(text: str, secret: str) -> None:
    assert found(text) == [secret]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password: Dragonfly", False),  # one capitalised word: a label far more often
        ("password: Passwort", False),
        ("password: Sommer2024", True),  # a season and a year: the commonest real password
        ("password: Summer2024!", True),
        ("password: Welcome1", True),
    ],
)
def test_one_word_passes_and_a_word_with_digits_is_refused(text: str, secret: bool) -> None:
    """The policy README states: a capitalised word alone is let through (46 of 926 values
    on a developer's machine, none a secret), a word with digits or a sign is judged."""
    assert bool(found(text)) == secret


@pytest.mark.parametrize(
    "text", ["token: 'my-token-here'", 'api_key = "insert-your-key-here"', "API_KEY=paste-key-here"]
)
def test_a_placeholder_of_words_ending_here_is_no_secret(text: str) -> None:
    """Words joined by `-` before `-here` (`\\w*` read one word only: refused)."""
    assert found(text) == []
