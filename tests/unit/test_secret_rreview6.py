"""Holes the review of the sixth review's branch found: a literal after a template's inner
call (`default (env "X") "v4lue"`) judged as given to that call, and a random string given
to a lookup (`{{ env "Zq8vT2mW9pLq" }}`) read as a name and let through."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memidx.secrets.detect import find_secrets

RANDOM = "Zq8vT2mW9pLq"


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    "text",
    [
        f'password: {{{{ default (env "DB_PASSWORD") "{RANDOM}" }}}}',
        f'password: {{{{ coalesce (env "X") .Values.pw "{RANDOM}" }}}}',
        f"token: ${{{{ format('{{0}}', fromJSON('x'), '{RANDOM}') }}}}",
    ],
)
def test_a_literal_after_an_inner_call_is_the_outer_calls(text: str) -> None:
    """The inner call's `)` gives the literal after it back to the outer function."""
    assert found(text) == [RANDOM]


@pytest.mark.parametrize(
    "text",
    [
        f'password: {{{{ secret "{RANDOM}" }}}}',
        f'password: {{{{ env "{RANDOM}" }}}}',
        f"password: ${{{{ env('{RANDOM}') }}}}",
        f'password: {{{{ index .Values "{RANDOM}" }}}}',
    ],
)
def test_a_random_string_given_to_a_lookup_is_judged(text: str) -> None:
    assert found(text) == [RANDOM]


@pytest.mark.parametrize(
    "text",
    [
        "password: {{ secret('db_password_v2') }}",
        'password: {{ env "AWS_S3_BUCKET" }}',
        "password: ${{ hashFiles('**/k8s/go.sum') }}",
        'password: {{ default (env "X") .Values.pw }}',
        'api-key: {{ index .Values.apiKeys "prod-east-1" }}',
        "password: {{ lookup('aws_ssm', '/db/pw2x3', region='eu-west-1') }}",
    ],
)
def test_a_name_given_to_a_lookup_stays_a_name(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "value", ["isQzkvTwpLmxRb", "hasQzkvTwpLmxRb", "is_QzkvTwpLmxRb", "wasHJKQWPZmx"]
)
def test_a_random_string_led_by_a_question_word_is_judged(value: str) -> None:
    """A flag's name is words after its question word; a random string's letters are none."""
    assert found(f"password = {value}") == [value]


@pytest.mark.parametrize(
    "text",
    ["password = is_expired", "token = isHTTPS", "password = hasSSL", "token = is_admin_user"],
)
def test_a_flags_name_stays_a_name(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "value", ["a.k9z3j7x4large", "ec2.z7k9m4b2large", "cfg.k7x9q2m4p8value", "app.h4k8s2p9r3name"]
)
def test_a_member_with_many_letters_between_digits_is_judged(value: str) -> None:
    """An instance type has one letter between digits (`t3a2xlarge`); a random string many."""
    assert found(f"token = {value}") == [value]


@pytest.mark.parametrize("value", ["ec2.t3a2xlarge", "ec2.m5d4xlarge"])
def test_an_instance_type_stays_a_member(value: str) -> None:
    assert found(f"token = {value}") == []


@pytest.mark.parametrize(
    "text", ["password=-v1beta1", "password: -Dkey2value3", "password = --output2file3"]
)
def test_an_option_with_words_between_digits_is_no_value(text: str) -> None:
    """A `-` led value is judged for letters between digits that are no word (`8vT2`)."""
    assert found(text) == []


@pytest.mark.parametrize("value", ["-Zq8vT2mW9pLq", "-k8s2web3"])
def test_a_dash_led_random_string_is_still_judged(value: str) -> None:
    assert found(f"password = {value}") == [value]


def test_a_line_of_open_references_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """`token={{x ` repeated: each reference was read to the line's end (50 KB: 19 s)."""
    from memidx.secrets import templates

    read: list[int] = []
    quoted_defaults = templates._quoted_defaults  # pyright: ignore[reportPrivateUsage]

    def counted(reference: str) -> Iterator[str]:
        read.append(len(reference))
        return quoted_defaults(reference)

    monkeypatch.setattr(templates, "_quoted_defaults", counted)
    line = "token={{x " * 5000
    assert found(line) == []
    assert len(read) == 5000 and sum(read) <= 2 * len(line)


@pytest.mark.parametrize(
    "text",
    [
        f'password: {{{{ default "{RANDOM}"',
        f'password: {{{{ default "{RANDOM}" token={{{{x',
        f'password: {{{{ .Values.x | default "{RANDOM}" }}}}' + " " * 2000,
    ],
)
def test_an_open_references_literal_is_still_judged(text: str) -> None:
    assert found(text) == [RANDOM]


@pytest.mark.parametrize(
    "text",
    [
        'git clone https://gitlab-ci-token:"${CI_JOB_TOKEN}"@gitlab.example.com/group/x.git',
        'token="${CI_JOB_TOKEN}"@gitlab.example.com/group/project.git',
        'TOKEN="${GITHUB_TOKEN}"/repos/owner/name/releases',
    ],
)
def test_a_host_or_path_after_a_quoted_reference_is_no_value(text: str) -> None:
    """After a quoted reference's closing quote only a literal part is judged, as beside one."""
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        f'password = "${{X}}"{RANDOM}',
        f"password = '${{X}}'{RANDOM};",
        f'password = "${{X}}"{RANDOM}&&echo',
        f'password = "${{X}}"-{RANDOM}',
    ],
)
def test_a_literal_after_a_quoted_reference_is_still_judged(text: str) -> None:
    assert found(text) == [RANDOM]
