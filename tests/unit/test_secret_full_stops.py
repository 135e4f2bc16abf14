"""A sentence's full stop after a long secret is no part of it: a keyword rule reads a value
to its run's end (`the token is v4lue.`, `TOKEN=v4lue. Then...`), the library's JWT pattern
stops after `header.payload.`, and a command line's password ran to its space, so the mask
took the stop (`[REDACTED:...]` where `[REDACTED:...].` was written) or left a JWT's
signature shown. A dot inside a value stays masked (a JWT's `a.b.c`), and so does one that
makes a value a secret (`letmein.`)."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets, redact_text

RANDOM = "Zq8xK3mP9vL2nR7tW4yB6cD1"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
UNSIGNED = "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0NTY3ODkwIn0"


def masked(text: str) -> str:
    return redact_text(text, allow=True).text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (f"api_key = {RANDOM}.", "api_key = [REDACTED:secret-assignment]."),
        (
            f"Set TOKEN={RANDOM}. Then run it.",
            "Set TOKEN=[REDACTED:secret-assignment]. Then run it.",
        ),
        (f"token: {RANDOM}.", "token: [REDACTED:secret-assignment]."),
        (f"The API key is {RANDOM}.", "The API key is [REDACTED:secret-assignment]."),
        (f"secret => {RANDOM}.", "secret => [REDACTED:secret-assignment]."),
        (f"token = {RANDOM}...", "token = [REDACTED:secret-assignment]..."),
        (f"(token={RANDOM}.)", "(token=[REDACTED:secret-assignment].)"),
        (f"Authorization: Bearer {RANDOM}.", "Authorization: Bearer [REDACTED:bearer-token]."),
        (f"token={JWT}.", "token=[REDACTED:jwt]."),
        (f"the jwt is {JWT}.", "the jwt is [REDACTED:jwt]."),
        (f"the jwt is {JWT} and more", "the jwt is [REDACTED:jwt] and more"),
        (f"unsigned: {UNSIGNED}.", "unsigned: [REDACTED:jwt]."),
        (f"curl -u bob:{RANDOM}. Done", "curl -u bob:[REDACTED:command-password]. Done"),
        (f"curl -u bob:{RANDOM}, then", "curl -u bob:[REDACTED:command-password], then"),
    ],
)
def test_a_sentences_full_stop_after_a_secret_is_shown(text: str, shown: str) -> None:
    assert masked(text) == shown


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"token={JWT}", JWT),  # a JWT's dots are its own
        (f"the jwt is {JWT}", JWT),  # its signature too, not only `header.payload.`
        ("password = Zq8x.K3mP9vL2nR7.", "Zq8x.K3mP9vL2nR7"),
        ("password = letmein.", "letmein."),  # the stop makes it one of the commonest
        ("password = hunter2.", "hunter2"),  # a short password stopped before it already
    ],
)
def test_a_dot_within_a_secret_stays_masked(text: str, secret: str) -> None:
    assert [text[f.start : f.end] for f in find_secrets(text, allow=True)] == [secret]


@pytest.mark.parametrize(
    "text",
    [
        f'password = "{RANDOM}."',
        f"api_key: '{RANDOM}...'",
        f'{{"token": "{RANDOM}."}}',
        f"export TOKEN='{RANDOM}.'; next",
        f"Set `TOKEN={RANDOM}.` first.",
        f'auth=("admin", "{RANDOM}.")',
        f'curl -H "Authorization: Bearer {RANDOM}." x',
        f"curl -u 'bob:{RANDOM}.' https://x",
        f"sshpass -p '{RANDOM}.' ssh host",
    ],
)
def test_a_dot_inside_a_secrets_quotes_stays_masked(text: str) -> None:
    """Inside its quotes a dot is the value's, no sentence's end: each was shown beside the
    mask (`password = "[REDACTED:secret-assignment]."`)."""
    shown = masked(text)
    assert RANDOM not in shown and "[REDACTED:" in shown and "]." not in shown
