"""A password's confirmation named with `pw` or `pass` first (`pwConfirm`, `pw_confirm`,
`PW_CONFIRM`, `passConfirm`): `\\b` wanted a sign after the word, so each value, long or
short, was let through where `password_confirm`, `pwd_confirm`, `passwd2` were refused. The
shell's `PWD` aside, `pass_through` and `passThrough` still name no password, nor does `pw`
first in another name: C's `struct passwd` fields (`pw_name`, `pw_gecos`) and Playwright's
settings (`PW_TEST_...`) were refused while any name `pw` began gave a password."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


NAMES = ["pwConfirm", "pw_confirm", "PW_CONFIRM", "pwRepeat", "pwAgain", "passConfirm",
         "pass_confirm", "pw2_confirm", "pw", "passwd", "pwd_confirm", "password2",
         "passwordConfirm", "confirmPw"]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("value", ["1234abcdXyz9", "abc123", "12345678"])
def test_a_confirmed_password_is_refused(name: str, value: str) -> None:
    assert found(f"{name}: {value}") == [value]
    assert found(f'{{"{name}": "{value}"}}') == [value]


@pytest.mark.parametrize(
    "text",
    ["pass_through: 1234", "passThrough: abc123", "PWDir: 1234", "pwd_here: /tmp/x",
     "pw_name = jsmith2024", "pw_gecos: Alice2Smith", "pw_browser: chromium-1091",
     "PW_TEST_CONNECT_WS_ENDPOINT=ws://127.0.0.1:4000/4a5b6c7d8e9f"],
)  # fmt: skip
def test_other_names_pass(text: str) -> None:
    assert found(text) == []
