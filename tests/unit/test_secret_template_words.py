"""The words inside a template's reference are no literal written beside it: a Helm chart's,
an Ansible play's and a GitHub Actions workflow's references with spaces in them were refused
(a word inside judged as the plain scalar's), while the words after one are still judged."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets

RANDOM = "Zq8vT2mW9pLq"


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    "text",
    [
        "  password: {{ randAlphaNum 16 }}",
        "  jwtSecret: {{ randAlphaNum 64 | b64enc | quote }}",
        "  password: {{ sha256sum .Values.x }}",
        "password: {{ lookup('password', '/tmp/pw chars=ascii_letters') }}",
        "          token: ${{ steps.app-token.outputs.token }}",
        "      password: {{ .Values.auth.password | default (randAlphaNum 10) }}",
        "  password: {{ randAlphaNum 16 }} # generated",
    ],
)
def test_the_words_inside_a_reference_are_none(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"password: {{{{ randAlphaNum 16 }}}} {RANDOM}", RANDOM),
        (f"token: ${{{{ secrets.X }}}} {RANDOM}", RANDOM),
        (f"password: ${{DB_PASSWORD}} {RANDOM}", RANDOM),
    ],
)
def test_the_words_after_a_reference_are_judged(text: str, secret: str) -> None:
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        f'DB_PASSWORD=${{DB_PASSWORD:-"{RANDOM}"}}',  # the shell's default, quoted
        f"PASSWORD=${{PASSWORD:='{RANDOM}'}}",
        f'  password: {{{{ .Values.db.password | default "{RANDOM}" | b64enc }}}}',  # Helm's
        f'  password: {{{{ default "{RANDOM}" .Values.db.password }}}}',
        f"          token: ${{{{ secrets.NPM_TOKEN || '{RANDOM}' }}}}",  # an Actions fallback
    ],
)
def test_a_quoted_default_a_reference_gives_is_judged(text: str) -> None:
    """Each was let through: the quote ended the value a reference leads."""
    assert found(text) == [RANDOM]


@pytest.mark.parametrize(
    "text",
    [
        'DB_PASSWORD=${DB_PASSWORD:-"postgres"}',
        '  password: {{ .Values.db.password | default "changeme" | b64enc }}',
        '  password: {{ required "db.password is required" .Values.db.password }}',
        "  token: ${{ github.event_name == 'push' && secrets.TOKEN || '' }}",
    ],
)
def test_a_placeholder_default_is_none(text: str) -> None:
    assert found(text) == []
