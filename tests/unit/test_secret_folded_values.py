"""A YAML plain scalar a secret-sounding key gives on its line and continues on the lines
below, more indented (`password: abc` over `  defGh7Kq9zLmW2`): YAML folds it into one value,
and the check read each line alone (`abc` too short, the line below no assignment), so a
wrapped token went through. Wrapped prose, a key or an item below, a comment, still pass."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("password: abc\n  defGh7Kq9zLmW2\n", ["abc", "defGh7Kq9zLmW2"]),
        (
            "```yaml\ndb:\n  password: Zq8vT2mW\n    9pLqXk7RtY\n  user: bob\n```\n",
            ["Zq8vT2mW", "9pLqXk7RtY"],
        ),
        ("- api_key: sk_live\n    Zq8vT2mW\n    9pLqXk7R\n", ["sk_live", "Zq8vT2mW", "9pLqXk7R"]),
        ('"token": Zq8v\r\n   T2mW9pLqXk7R\r\n', ["Zq8v", "T2mW9pLqXk7R"]),
        # a comment after a line below ends the value there (it was let through)
        ("password: abc\n  defGh7Kq9zLmW2  # rotated\n  xyz\n", ["abc", "defGh7Kq9zLmW2"]),
    ],
)
def test_a_folded_secret_is_refused(text: str, parts: list[str]) -> None:
    assert found(text) == parts


def test_a_secret_folded_over_more_lines_than_are_judged_is_masked_whole() -> None:
    """Its first lines judged (FOLDED_LINES), every line of it masked: a token wrapped over
    20 lines showed its last 4."""
    token = "Zq8vT2mW9pLqXk7RtYbN4cHs"
    parts = [f"{token[i : i + 5]}{i}" for i in range(20)]
    text = "password: Zq8vT2mW\n" + "".join(f"  {part}\n" for part in parts) + "user: bob\n"
    assert found(text) == ["Zq8vT2mW", *parts]


@pytest.mark.parametrize(
    "text",
    [
        "description: the token is\n  rotated daily\n",
        "token: abc\n  # a comment\n",
        "password: abc\n  user: bob\n",
        "password: abc\n  - item\n",
        "token: read\n  write\n",
        "password: abc\ndefGh7Kq9zLmW2\n",  # not indented: no continuation
        "  password: abc\n  defGh7Kq9zLmW2\n",  # as indented as its key: a line of its own
        "title: Tokens\n  rotatedDaily\n",  # no secret-sounding key
    ],
)
def test_other_lines_pass(text: str) -> None:
    assert found(text) == []
