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


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        # the library read `ghs_ghp_...` from `weighs`, a name's, and looked for the next token
        # from that match's end on: the token inside it was let through whole
        (f"weighs_ghp_{BODY}", "weighs_[REDACTED:github-token]"),
        (f"laughs_ghp_{BODY} leaked", "laughs_[REDACTED:github-token] leaked"),
        (f"weighs_only_the_idf_gho_{BODY}", "weighs_only_the_idf_[REDACTED:github-token]"),
        # a token glued to a word (a shell's `$Xghp_...`): its body is a token's, no name's
        (f"tokenghp_{BODY}", "token[REDACTED:github-token]"),
        (f"export GH=abc_ghp_{BODY}", "export GH=abc_[REDACTED:github-token]"),
        (f"x-ghu_{BODY}", "x-[REDACTED:github-token]"),
        (
            f"https://ghp_{BODY}@github.com/o/r.git",
            "https://[REDACTED:github-token]@github.com/o/r.git",
        ),
    ],
)
def test_a_token_after_a_word_is_masked(text: str, shown: str) -> None:
    assert redact_text(text).text == shown
