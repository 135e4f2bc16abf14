"""Names a developer's note writes that were refused as secrets: a cloud's or an identity
service's words joined by `-` (`auth: azure-active-directory-default`, one word outside the
method names' list made four words a passphrase; `credentials: service-account`, judged by its
entropy), and a variable's name of words with acronyms in it (`api_key:
myAPIKeyForGCPInVSCode`, its case cut into no words). A diceware passphrase and a random
string of letters are still refused, under any key."""

from __future__ import annotations

import random
import string

import pytest

from memidx.secrets.dashed_names import dashed_name
from memidx.secrets.detect import find_secrets
from memidx.secrets.identifiers import names_a_secret


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    "text",
    [
        "auth: azure-active-directory-default",
        "auth: aws-iam-identity-center",
        "auth: { mode: gcp-service-account-impersonation }",
        "credentials: gcp-service-account-impersonation",
        "token_mode: gcp-service-account-impersonation",
        "credentials: service-account",
        "credentials: application-default",
        "credentials: workload-identity-federation",
        "token: read-write",
        "api_key: gcp-service-account",
        "auth: Azure-Active-Directory-Default",
        "api_key: myAPIKeyForGCPInVSCode",
        "token: myGitHubTokenForCI",
        "apiKey: theAWSSecretKeyForProdDB",
    ],
)
def test_a_name_passes(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password: correct-horse-battery-staple", "correct-horse-battery-staple"),
        ("password: correct-horse-battery", "correct-horse-battery"),
        ("auth: correct-horse-battery-staple", "correct-horse-battery-staple"),
        ("auth: Correct-Horse-Battery-Staple", "Correct-Horse-Battery-Staple"),
        ("token: correct-horse-battery-staple", "correct-horse-battery-staple"),
        # one cloud word among diceware words is chance, not a name
        ("auth: cloud-pickle-orbit-lantern", "cloud-pickle-orbit-lantern"),
        # a person's own passphrase of words that say what a thing is for, under a password key
        ("password: Secret-Admin-Key", "Secret-Admin-Key"),
        ("password: Login-Access-Key", "Login-Access-Key"),
        ("password: sunshine-admin-login", "sunshine-admin-login"),
        # a word of a person's that never was a cloud's counts against a name still: left out,
        # two cloud words of five made these names, let through
        ("password: Horse-Azure-Default-Pass-Root", "Horse-Azure-Default-Pass-Root"),
        ("password: Tiger-Cloud-Default-Master-Root", "Tiger-Cloud-Default-Master-Root"),
        ("api_key: bPxRfiCYzqWmTLKeyQxv", "bPxRfiCYzqWmTLKeyQxv"),
        ("api_key: QZXWVbPxRfiKeyQxvTL", "QZXWVbPxRfiKeyQxvTL"),
    ],
)
def test_a_secret_is_refused(text: str, secret: str) -> None:
    assert found(text) == [secret]


def test_few_diceware_passphrases_read_as_names() -> None:
    """Words of diceware's kind (common words, few a cloud's) drawn at random are read as a
    name rarely: the rule's cost in passphrases let through (0.013 % of 4 words drawn from
    EFF's list, measured; here words of a small list of common ones)."""
    words = [
        "correct", "horse", "battery", "staple", "orbit", "lantern", "pickle", "fjord",
        "tundra", "maple", "velvet", "canyon", "copper", "meadow", "ribbon", "saddle", "timber",
        "walnut", "cactus", "harbor", "jungle", "pepper", "quartz", "rocket", "summit",
        "violet", "anchor", "bucket", "candle", "dragon", "engine", "falcon", "garden",
        "hammer", "island", "jacket",
    ]  # fmt: skip
    draw = random.Random(54)
    passphrases = ["-".join(draw.choice(words) for _ in range(4)) for _ in range(2000)]
    assert sum(dashed_name(p) for p in passphrases) <= 20


def test_random_letters_with_a_secret_word_are_rarely_names() -> None:
    """Acronyms read as words let a placeholder through; random letters with a `Key` in them
    are read as a variable's name no more often than before (3 % of 16 letters then)."""
    draw = random.Random(54)
    values: list[str] = []
    for _ in range(4000):
        letters = "".join(draw.choice(string.ascii_letters) for _ in range(16))
        at = draw.randrange(16)
        values.append(letters[:at] + draw.choice(["Key", "Token", "Secret"]) + letters[at:])
    assert sum(names_a_secret(v) for v in values) < 0.035 * len(values)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password: aws-iam-identity-center", "aws-iam-identity-center"),
        ("DB_PASSWORD=azure-active-directory-default", "azure-active-directory-default"),
        ('"passwd": "gcp-service-account-impersonation"', "gcp-service-account-impersonation"),
        ("export PGPASSWORD=aws-iam-identity-center", "aws-iam-identity-center"),
        ('userPassword = "workload-identity-federation"', "workload-identity-federation"),
        ("pwd: aws-iam-identity-center", "aws-iam-identity-center"),
    ],
)
def test_a_cloud_name_given_to_a_password_is_a_passphrase(text: str, secret: str) -> None:
    """A password's own name's value is what a person types, never a thing's name (no
    configuration names a method under it): `password: aws-iam-identity-center` passed."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "auth: aws-iam-identity-center",
        "bypass: aws-iam-identity-center",
        "pass: read-write",  # a test's verdict or a mode, as before
        "secret_source: aws-iam-identity-center",
    ],
)
def test_a_cloud_name_under_another_name_still_passes(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password:\n  aws-iam-identity-center", "aws-iam-identity-center"),
        ("password: >-\n  azure-active-directory-default", "azure-active-directory-default"),
        ("- pwd:\n    - aws-iam-identity-center", "aws-iam-identity-center"),
        ("password: {value: aws-iam-identity-center}", "aws-iam-identity-center"),
        ("<password>aws-iam-identity-center</password>", "aws-iam-identity-center"),
        ("<db:passwd>aws-iam-identity-center</db:passwd>", "aws-iam-identity-center"),
        ('<add key="DbPassword" value="aws-iam-identity-center"/>', "aws-iam-identity-center"),
        ('<property name="password" value="aws-iam-identity-center"/>', "aws-iam-identity-center"),
    ],
)
def test_a_cloud_name_below_or_inside_a_password_is_a_passphrase(text: str, secret: str) -> None:
    """The same value on the line below a password's key (YAML's block, list or flow
    collection) or inside its XML element was let through: only a value on the key's line
    was judged as a passphrase (keywords._passphrase)."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "auth:\n  aws-iam-identity-center",
        "secret: [aws-iam-identity-center]",
        "<auth>aws-iam-identity-center</auth>",
        '<add key="authMethod" value="aws-iam-identity-center"/>',
        "bypass:\n  aws-iam-identity-center",
    ],
)
def test_a_cloud_name_below_or_inside_another_name_still_passes(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("passphrase: Zq8vT2mW9pLqXk", "Zq8vT2mW9pLqXk"),
        ("GPG_PASSPHRASE=Zq8vT2mW9pLqXk", "Zq8vT2mW9pLqXk"),
        ('ssh_passphrase = "Zq8vT2mW9pLqXk"', "Zq8vT2mW9pLqXk"),
        ("passphrase: hunter2", "hunter2"),
        ("passphrase: aws-iam-identity-center", "aws-iam-identity-center"),
        ("<passphrase>Zq8vT2mW9pLqXk</passphrase>", "Zq8vT2mW9pLqXk"),
    ],
)
def test_a_value_given_to_a_passphrase_is_judged(text: str, secret: str) -> None:
    """`passphrase` was no secret-sounding word: every value given to it was let through,
    though a password's own name's (PASSWORD_GIVEN, short.PERSONAL) and the README says so."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "passphrase: true",
        "passphrase_required: yes",
        "passphrase: ${GPG_PASSPHRASE}",
        "passphrase: <your-passphrase>",
        "gpg --passphrase-file ~/.gnupg/passphrase.txt",
    ],
)
def test_a_passphrase_s_placeholder_still_passes(text: str) -> None:
    assert found(text) == []
