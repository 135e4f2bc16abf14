"""`api-key` written as HTTP headers, Helm values and HTML attributes write it (`x-api-key:`,
`api-key:`, `<GoogleMap api-key="...">`): the library's list reads `api_key` and `apikey`, and
memidx's own `secret-key` and `access-key`, but the value given to `api-key` was let through."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets

VALUE = "Zq8vN3kLp2Rt7Wx"


@pytest.mark.parametrize(
    "text",
    [
        f"x-api-key: {VALUE}",
        f'curl -H "X-API-Key: {VALUE}" https://api.example.com',
        f"  api-key: {VALUE}",
        f'api-key="{VALUE}"',
        f'<GoogleMap api-key="{VALUE}" />',
    ],
)
def test_a_value_given_to_api_key_is_found(text: str) -> None:
    assert [text[f.start : f.end] for f in find_secrets(text)] == [VALUE]


@pytest.mark.parametrize(
    "text",
    ["x-api-key: ${API_KEY}", "api-key: <your-api-key>", 'api-key="changeme"', "api-keys: 3"],
)
def test_a_placeholder_given_to_api_key_is_no_secret(text: str) -> None:
    assert find_secrets(text) == []
