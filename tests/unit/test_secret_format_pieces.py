"""A piece a template's format joins to a reference is a part of a name, not a value: a GitHub
Actions workflow's `${{ format('{0}-{1}', github.ref, 'deploy2prod') }}` was refused, each
literal given to format or printf judged as a whole value. A random piece is still refused, and
a format given literals only makes its value of them."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets

RANDOM = "Zq8vT2mW9pLq"


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    "text",
    [
        "  TOKEN: ${{ format('{0}-{1}', github.ref, 'deploy2prod') }}",
        "  TOKEN: ${{ format('{0}-{1}', 'deploy2prod', github.ref) }}",
        "  TOKEN: ${{ format('{0}-{1}', toJSON(github.ref), 'deploy2prod') }}",
        "  TOKEN: ${{ format('{0}-{1}-{2}', github.ref, 'release2024v2build', 'x') }}",
        '  password: {{ printf "%s-%s" .Values.name "deploy2prod" }}',
        '  password: {{ .Values.name | printf "%s-%s" "deploy2prod" }}',
    ],
)
def test_a_piece_joined_to_a_reference_is_a_name(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        f"  TOKEN: ${{{{ format('{{0}}', '{RANDOM}') }}}}",
        f"  TOKEN: ${{{{ format('{{0}}-{{1}}', github.ref, '{RANDOM}') }}}}",
        f"  TOKEN: ${{{{ format('{{0}}-{{1}}', '{RANDOM}', github.ref) }}}}",
        f'  password: {{{{ printf "%s-%s" .Values.name "{RANDOM}" }}}}',
        f'  password: {{{{ printf "%s" "{RANDOM}" }}}}',
    ],
)
def test_a_random_piece_or_a_whole_value_is_refused(text: str) -> None:
    assert found(text) == [RANDOM]


def test_a_format_given_literals_only_is_judged_whole() -> None:
    assert found("  TOKEN: ${{ format('{0}', 'deploy2prod') }}") == ["deploy2prod"]


@pytest.mark.parametrize(
    ("text", "value"),
    [  # Helm's basic auth: a user's reference, a password's literal
        ('  auth: {{ printf "%s:%s" .Values.user "xK9#mP2$vL5@" | b64enc }}', "xK9#mP2$vL5@"),
        ('  password: {{ printf "%s-%s" .Values.name "P@ssw0rd2024!" }}', "P@ssw0rd2024!"),
        ("  TOKEN: ${{ format('{0}{1}', github.ref, 'Summer2024!') }}", "Summer2024!"),
    ],
)
def test_a_piece_with_a_password_s_sign_is_judged(text: str, value: str) -> None:
    """Each was let through as a name's part: no name's part holds `#`, `@`, `!`, `$`."""
    assert found(text) == [value]


@pytest.mark.parametrize(
    "text",
    [
        "  TOKEN: ${{ format('{0}:{1}', github.repository, 'refs/heads/v2.1') }}",
        "  TOKEN: ${{ format('{0}{1}', github.actor, '@users.noreply.github.com') }}",
    ],
)
def test_a_piece_of_a_path_or_an_address_is_a_name(text: str) -> None:
    assert found(text) == []
