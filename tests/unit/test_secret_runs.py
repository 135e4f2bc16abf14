"""A long run of characters without spaces (a URL of 200 characters and more) that is no
value: the names after it on its line are still read (a review found each let through)."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets

LONG_URL = "https://example.com/" + "a/" * 110 + "?x=1"


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"url={LONG_URL}&password=!Zq8vT2mW9pL", "!Zq8vT2mW9pL"),
        (f"url={LONG_URL}&db_password=&Zq8vT2mW9pL", "&Zq8vT2mW9pL"),
        (f"link: {LONG_URL}&GITHUB_TOKEN=Zq8vT2mW9pL", "Zq8vT2mW9pL"),
        (f"url={LONG_URL}&credentials=Zq8vT2mW9pL", "Zq8vT2mW9pL"),
        (f"url={LONG_URL}&x-api-key=Zq8vT2mW9pL", "Zq8vT2mW9pL"),
    ],
)
def test_a_secret_after_a_long_run_on_its_line_is_found(text: str, secret: str) -> None:
    """Every name followed by a run over 200 characters skipped the run's names: only a
    value read as none (`token=!<run>`) is read once, its names then up to 200 characters."""
    assert found(text) == [secret]
