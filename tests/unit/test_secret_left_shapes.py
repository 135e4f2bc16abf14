"""Shapes the last review left: passwords each exception let through, and values of code
each rule refused as passwords."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("userPassword=!hunterTwo9", "!hunterTwo9"),
        ("userPassword = !hunterTwo9", "!hunterTwo9"),
        ("apiKey = !correctHorse", "!correctHorse"),
    ],
)
def test_words_joined_by_case_after_a_holders_bang_are_a_password(text: str, secret: str) -> None:
    """A name that holds a secret (`userPassword`) given `!` and words joined by case was
    read as code's negation of a variable; a member, a call or a flag's name still is."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('password: "@hunter/hunter2"', "@hunter/hunter2"),
        ('DB_PASSWORD="@hunter/hunter2"', "@hunter/hunter2"),
        ('passwd: "#summer/summer2024"', "#summer/summer2024"),
        ('password: "@admin/admin@123"', "@admin/admin@123"),
        ("<password>@hunter/hunter2</password>", "@hunter/hunter2"),
        ("<db:password>@admin/admin@123</db:password>", "@admin/admin@123"),
        ('<add key="DbPassword" value="@hunter/hunter2"/>', "@hunter/hunter2"),
        ('<property name="password" value="@hunter/hunter2"/>', "@hunter/hunter2"),
    ],
)
def test_a_word_and_digits_in_a_path_given_a_persons_password_is_found(
    text: str, secret: str
) -> None:
    """A person's password is no package: `@hunter/hunter2` given to `password` was read as
    a package's path (`token: "@noble/ed25519"`, `password: "@/lib/password"` still are)."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        'token: "@noble/ed25519"',
        'secret: "@types/node@20"',
        'password: "@/lib/password"',
        'password: "@azure/identity"',
        'password: "@/components/PasswordInput"',
        "<password>@/lib/password</password>",
        "<token>@noble/ed25519</token>",
        '<add key="ApiToken" value="@noble/ed25519"/>',
    ],
)
def test_a_package_or_a_path_without_a_passwords_shape_is_no_password(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password: &pw !Zq8vT2mW9pL", "!Zq8vT2mW9pL"),
        ("password: &pw &hunter22", "&hunter22"),
        ("password: !!str &pw !Welcome2024", "!Welcome2024"),
    ],
)
def test_a_sign_led_password_after_an_anchor_is_found(text: str, secret: str) -> None:
    """`&pw` then `!Zq8vT2mW9pL`: the anchor's value was taken for a tag and let through,
    where `password: !Zq8vT2mW9pL` alone is read."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text", ["password: &pw !vault |", "password: &pw !Ref DbSecret", "password: &pw !!binary"]
)
def test_a_tag_after_an_anchor_is_no_password(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        'setCredentials("Zq8vT2mW9pL", null)',
        'setCredentials("Zq8vT2mW9pL", undefined)',
        'set_credentials("Zq8vT2mW9pL", None, True)',
        'setCredentials("Zq8vT2mW9pL", 3600)',
    ],
)
def test_a_credentials_setters_first_argument_before_a_literal_is_found(text: str) -> None:
    """`null`, `None`, a number after it name no password: the first argument was taken for
    a user's name and let through (`setCredentials("bob", pw)` still names a user)."""
    assert found(text) == ["Zq8vT2mW9pL"]


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        ("token=!aaaaaaaaaaaa&password=!Zq8vT2mW9pL", ["!Zq8vT2mW9pL"]),
        ("password=&lt;&token=!Zq8vT2mW9pL", ["!Zq8vT2mW9pL"]),
        ("password=@/lib/x&token=!Zq8vT2mW9pL", ["!Zq8vT2mW9pL"]),
        ("GITHUB_TOKEN=Zq8vT2mW9pLx&password=Zq8vT2mW9pL", ["Zq8vT2mW9pLx", "Zq8vT2mW9pL"]),
        (f"token=!{'a' * 300}&password=!Zq8vT2mW9pL", ["!Zq8vT2mW9pL"]),
    ],
)
def test_an_unquoted_value_ends_where_the_next_secrets_name_begins(
    text: str, secrets: list[str]
) -> None:
    """A sign-led value without quotes ran over `&password=` to its run's end: judged as one
    value, masked whole with the name between, the path before it taken for the password."""
    assert found(text) == secrets


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("%26password%3DZq8vT2mW9pL", "Zq8vT2mW9pL"),
        ("next=%2Flogin%3Fuser%3Dbob%26password%3DZq8vT2mW9pL", "Zq8vT2mW9pL"),
        ("body=%7B%22api_key%22%3A%22Zq8vT2mW9pL%22%7D", "Zq8vT2mW9pL"),
        ("password%3DZq8v%2BT2mW9pL", "Zq8v%2BT2mW9pL"),
    ],
)
def test_a_percent_encoded_pair_is_read_decoded(text: str, secret: str) -> None:
    """A query string inside a URL's parameter writes `=` as `%3D` and `&` as `%26`: no name
    was given a value there. The value is masked as it stands, encoded."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "search?q=password%3A+how+to+reset",
        "q=password%3Dchangeme",
        "password%3D%24%7BDB_PASSWORD%7D",
        "https://example.com/?a=1%3D2&b=%26c",
    ],
)
def test_a_percent_encoded_placeholder_or_prose_is_no_secret(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "text", ["password = Tr0ub4dor(x)", "password: Tr0ub4dor(!)", "api_key = P4ssw0rd(abc)"]
)
def test_a_password_swapped_twice_shaped_as_a_call_of_a_word_is_found(text: str) -> None:
    """Two single digits between letters name no function: given a word or a sign instead of
    digits, `Tr0ub4dor(x)` was read as a call and let through."""
    assert len(found(text)) == 1


@pytest.mark.parametrize(
    "text",
    [
        "token = s3client()",
        "credentials = boto3client()",
        "secret = web3provider()",
        "token = sha1sum()",
        "token = s3client(1)",
    ],
)
def test_a_call_of_a_library_named_with_a_digit_is_no_password(text: str) -> None:
    """A digit before a word of code (`s3` `client`, `boto3` `client`) is a library's name,
    no letter swapped: refused since one swap before a small letter made a password."""
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        'password = """\nZq8vT2mW9pL\n"""  # memidx: allow-secret\n',
        'x = 1\napi_key = """\nZq8vT2mW9pL\nQw7rT3yU8iOp\n"""  # memidx: allow-secret\n',
    ],
)
def test_a_marker_on_a_closing_tripled_quote_allows_the_string(text: str) -> None:
    """A marker after the closing quotes, where a statement's comment goes, allowed only
    the closing line: the string's lines were refused."""
    assert found(text) == []


def test_a_marker_on_a_closing_quote_allows_no_string_before_it() -> None:
    text = (
        'password = """\nZq8vT2mW9pL\n"""\n'
        'api_key = """\nQw7rT3yU8iOp\n"""  # memidx: allow-secret\n'
        'token = "Xc4vB7nM2kLq"\n"""  # memidx: allow-secret\n'
    )
    assert found(text) == ["Zq8vT2mW9pL", "Xc4vB7nM2kLq"]


@pytest.mark.parametrize(
    "text",
    [
        "password: !Sub 'Zq8vT2mW9pL'",
        'DbPassword: !Base64 "Zq8vT2mW9pL"',
        "password: !unsafe 'Zq8vT2mW9pL'  # a comment",
        "password: &pw !Sub Zq8vT2mW9pL",
    ],
)
def test_a_literal_given_to_a_yaml_tag_is_found(text: str) -> None:
    """CloudFormation's `!Sub` and `!Base64`, Ansible's `!unsafe` keep the string they are
    given: it was taken for the tag's and let through."""
    assert found(text) == ["Zq8vT2mW9pL"]


@pytest.mark.parametrize(
    "text",
    [
        "password: !Ref 'DbSecret'",
        "password: !ImportValue 'prod-db-password'",
        "password: !Sub '${AWS::StackName}-pw'",
        "password: !secret db_password",
        "password: !!binary 'R0lGODlhDAAMAIQAAP'",
    ],
)
def test_a_name_or_a_template_given_to_a_yaml_tag_is_no_secret(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        'TokenStr("en_US.UTF-8")',
        'Token("en_US.UTF-8")',
        'token = "zh_CN.GB18030"',
        "password = de_DE@euro",
    ],
)
def test_a_locales_name_is_no_secret(text: str) -> None:
    """A locale with its encoding or variant has two kinds of characters and entropy enough:
    a wrapper's string (`TokenStr(...)`, read as `SecretStr(...)` is) was refused."""
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "maskPassword = !unmasked",
        "rememberPassword = !isPublicDevice;",
        "const credentials = !!process.env.CI;",
        "const token = !!process.env.API_TOKEN;",
    ],
)
def test_code_negating_a_flag_or_a_constant_is_no_secret(text: str) -> None:
    """A verb before a secret's word names a flag (`maskPassword`), and `!!process.env.CI`
    is code's boolean of a constant: each was refused as a password."""
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        'hashPassword("Zq8vT2mW9pL")',
        'encryptSecret("Zq8vT2mW9pL")',
        'comparePassword(input, "Zq8vT2mW9pL")',
    ],
)
def test_a_call_that_hashes_or_compares_a_password_is_given_one(text: str) -> None:
    """The library reads `hash_password("...")` in small letters; in camel case the call
    was taken for one that names something else and let through."""
    assert found(text) == ["Zq8vT2mW9pL"]


@pytest.mark.parametrize(
    "text",
    [
        "x: '{{resolve:secretsmanager:MySecret:SecretString:password}}'",
        "MasterUserPassword: '{{resolve:secretsmanager:prod/db:SecretString:password}}'",
    ],
)
def test_a_name_inside_a_template_is_given_no_secret(text: str) -> None:
    """CloudFormation's dynamic reference names where the secret is: the part after its
    `secretsmanager:`, its `}}` taken off, was judged as a password."""
    assert found(text) == []


def test_a_password_ending_in_braces_outside_a_template_is_found() -> None:
    assert found("password: Zq8vT2mW9pL}}") == ["Zq8vT2mW9pL"]


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        ("https://example.com/reset?token_type=bearer&grant_type=password", []),
        ("token_type=bearer&grant_type=client_credentials", []),
        ("https://x.io/cb?access_token=Zq8vT2mW9pLxQ&state=abc", ["Zq8vT2mW9pLxQ"]),
    ],
)
def test_a_query_strings_value_ends_at_its_next_pair(text: str, secrets: list[str]) -> None:
    """A query string writes a value's `&` encoded: `bearer&grant_type=password`, read as one
    value of a secret's name, was refused."""
    assert found(text) == secrets
