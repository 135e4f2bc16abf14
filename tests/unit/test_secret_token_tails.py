"""A GitHub token is masked to the end of its run: the library's pattern reads exactly 36
characters after `ghp_` (`gho_`, `ghu_`, `ghs_`, `ghr_`), so a longer run (a token pasted
twice, one with characters typed after it, a newer format) showed its tail after the mask;
what follows the run (a full stop, a quote, a space) stays."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import redact_text

BODY = "a1B2c3D4e5" * 3 + "f6G7h8"  # 36 characters


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (f"ghp_{BODY}", "[REDACTED:github-token]"),  # as before
        (f"ghp_{BODY}Zq9x", "[REDACTED:github-token]"),
        (f"export GH_TOKEN=gho_{BODY}{BODY}", "export GH_TOKEN=[REDACTED:github-token]"),
        (f"the token ghs_{BODY}_extra9 leaked.", "the token [REDACTED:github-token] leaked."),
        (f'"ghu_{BODY}Q1w2E3".', '"[REDACTED:github-token]".'),
        (f"ghr_{BODY}x-y", "[REDACTED:github-token]-y"),  # `-` is no token's character
    ],
)
def test_a_github_token_is_masked_to_its_runs_end(text: str, shown: str) -> None:
    assert redact_text(text).text == shown
    assert redact_text(text, allow=True).text == shown


def test_a_prefix_inside_a_word_is_no_token() -> None:
    """A test's name held `ghs_` after `weig`: it was masked as a token."""
    text = "def test_a_model_that_weighs_only_the_idf_share_does_not_read_second_chunks():"
    assert redact_text(text).text == text
