"""A member whose part holds words between its digits is code's name, not a random string:
the Kubernetes client's `V2beta2HorizontalPodAutoscaler` and `V1beta1TokenReview`, and
`config.v2Api3Key`, were refused as a random part after a dot (21f40fff)."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    "text",
    [
        "token = client.V2beta2HorizontalPodAutoscaler",
        "token_review = client.V1beta1TokenReview",
        "apiKey = config.v2Api3Key",
        "token = app.oauth2Client3Factory",
    ],
)
def test_a_members_name_with_words_between_its_digits_is_a_reference(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password = en_US.Zq8vT2mW9pL", "en_US.Zq8vT2mW9pL"),
        ("password = en_US.aB3xKpQ9mZt", "en_US.aB3xKpQ9mZt"),
        ("password = en_US.zq8vt2mw9plq", "en_US.zq8vt2mw9plq"),
    ],
)
def test_a_random_part_is_still_refused(text: str, secret: str) -> None:
    assert found(text) == [secret]
