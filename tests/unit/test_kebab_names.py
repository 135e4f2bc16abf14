"""`api-key` written as HTTP headers, Helm values and HTML attributes write it (`x-api-key:`,
`api-key:`, `<GoogleMap api-key="...">`), `private-key:`, and Azure's `Subscription-Key`: the
library's list reads `api_key`, `apikey` and `private_key`, memidx's own `secret-key` and
`access-key`, and the value given to each of these was let through."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets

VALUE = "Zq8vN3kLp2Rt7Wx"


HEX = "3f9a1c2e7b4d4e8a9c0b1d2e3f4a5b6c"


@pytest.mark.parametrize(
    "text",
    [
        f"x-api-key: {VALUE}",
        f'curl -H "X-API-Key: {VALUE}" https://api.example.com',
        f"  api-key: {VALUE}",
        f'api-key="{VALUE}"',
        f'<GoogleMap api-key="{VALUE}" />',
        f"private-key: {VALUE}",
        f"SUBSCRIPTION_KEY={VALUE}",
        f"Ocp-Apim-Subscription-Key: {HEX}",  # Azure's header
    ],
)
def test_a_value_given_to_api_key_is_found(text: str) -> None:
    value = HEX if HEX in text else VALUE

    assert [text[f.start : f.end] for f in find_secrets(text)] == [value]


@pytest.mark.parametrize(
    "text",
    ["x-api-key: ${API_KEY}", "api-key: <your-api-key>", 'api-key="changeme"', "api-keys: 3"],
)
def test_a_placeholder_given_to_api_key_is_no_secret(text: str) -> None:
    assert find_secrets(text) == []
