"""A secret under a Markdown label in bold or italics, a note's way of writing one
(`**Password:** <value>`, `- **password**: <value>`): no name was given a value, and any
value, random or short, was let through."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets, redact_text

VALUE = "Zq8vT2mW9pLq"


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    "label",
    [
        "**Password:**",
        "- **password**:",
        "__Password:__",
        "*Password*:",
        "| **Passwd**:",
        "_DB_PASSWORD_:",
    ],
)
def test_a_labels_value_is_judged(label: str) -> None:
    assert found(f"{label} {VALUE}\n") == [VALUE]
    assert found(f"Staging:\n\n{label} hunter2\n") == ["hunter2"]


def test_a_token_labels_value_is_judged() -> None:
    assert found(f"**API token**: {VALUE}xK7") == [f"{VALUE}xK7"]


def test_the_note_keeps_its_label_where_the_value_is_masked() -> None:
    text = f"**Password:** {VALUE}\n"
    assert redact_text(text).text.startswith("**Password:** [REDACTED")


@pytest.mark.parametrize(
    "text",
    [
        "**Password:** must be at least 12 characters",
        "**Note:** Zq8vT2mW9pLq is the build's id",
        "**Token**: `${{ secrets.GITHUB_TOKEN }}`",
        "a **bold** word: and __init__: self",
        "**Password rotation:** every 90 days",
    ],
)
def test_labels_of_no_secret_pass(text: str) -> None:
    assert found(text) == []
