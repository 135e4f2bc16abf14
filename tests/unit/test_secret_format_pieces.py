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
