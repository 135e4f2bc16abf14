"""A file's path given to a secret-sounding name (`password_file`, `ssh_key`) names where the
secret is, and is no secret: a POSIX path (`/run/secrets/db`, `~/.ssh/id_rsa`, `./pw`) passed,
while the same path written as Windows writes it (`C:\\secrets\\pw.txt`, `..\\pw`, a share's
`\\\\host\\share\\pw`) was refused, and a note of a setup on Windows could not be committed."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets

VALUE = "Zq8vN3kLp2Rt7Wx"


@pytest.mark.parametrize(
    "text",
    [
        "password_file: C:\\secrets\\db_password.txt",
        'password_file = r"C:\\Users\\me\\pw.txt"',
        "ssh_key: D:/keys/id_ed25519",
        "PASSWORD_FILE=..\\secrets\\db_password",
        "password_file: ../secrets/db_password",
        "secret_path = \\\\fileserver\\secrets\\db_password",
    ],
)
def test_a_windows_path_given_a_secret_name_is_no_secret(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize("value", [f"C{VALUE}", f"C:{VALUE}", f"C:{VALUE}\\\\x"])
def test_a_value_that_only_starts_as_a_path_does_is_still_found(value: str) -> None:
    text = f'DB_PASSWORD="{value}"'

    assert [text[f.start : f.end] for f in find_secrets(text)] == [value]


@pytest.mark.parametrize(
    "text",
    [
        'PASSWORD="@hunter2\\secret9"',
        'PASSWORD="!zq8xq2\\abcdef"',
        "DB_PASSWORD=#kp3mw9\\zq8xq2",
        "<password>@hunter2\\secret9</password>",
    ],
)
def test_a_backslash_in_a_sign_led_password_makes_no_path(text: str) -> None:
    # only a share's path (`\\host\share\pw`) is split on backslashes: these were let through
    assert find_secrets(text) != []


def test_a_share_path_given_a_password_name_is_no_secret() -> None:
    assert find_secrets("DB_PASSWORD=\\\\fileserver\\share\\pw") == []
