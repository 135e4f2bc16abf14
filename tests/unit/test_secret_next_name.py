"""A value without spaces ends where a secret-sounding name is given a value after a separator
(`password=x,secret=...`, a query string's `&token=`, a connection string's `;Password=`): the
library's keyword detector read the first value to the end of its run, so the second's name was
masked with it and the second value was never reported on its own, nor masked when the first
held nothing secret. Where a piece is no secret on its own, the whole value is judged too: cut,
`password=k9Fz2,api_key=Q` was shown, each piece too short, though the whole is a secret."""

from __future__ import annotations

import pytest

from memidx.config import Config
from memidx.githooks.secret_check import check_secrets
from memidx.secrets import library
from memidx.secrets.detect import find_secrets, mask, mask_many, redact_text
from memidx.secrets.windows import LONG_LINE
from tests.helpers import NotesRepo
from tests.unit.test_secrets_linear import fastest

FIRST, SECOND = "Xk9mP2vL8qR4", "aB3dEf9hIjK1mNoP"


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        (
            f"password={FIRST},secret={SECOND}",
            "password=[REDACTED:secret-assignment],secret=[REDACTED:secret-assignment]",
        ),
        (f"pwd={FIRST};api_key={SECOND} done", f"pwd=[REDACTED:{'secret-assignment'}];api_key="
         "[REDACTED:secret-assignment] done"),
    ],
)  # fmt: skip
def test_a_name_after_a_value_is_its_own(line: str, shown: str) -> None:
    """Where every piece is a secret on its own, each is reported on its own."""
    assert redact_text(line).text == shown
    assert line[find_secrets(line)[-1].start - 1] == "="  # the second reported from its value


WHOLE = [
    ("password=k9Fz2,api_key=Q", "password=[REDACTED:secret-assignment]"),
    (f"pwd={FIRST};api_key=Q", "pwd=[REDACTED:secret-assignment]"),
    (f"password=x,secret={SECOND}", "password=[REDACTED:secret-assignment]"),
    (f"https://h/?password=x&token={SECOND}", "https://h/?password=[REDACTED:secret-assignment]"),
]


@pytest.mark.parametrize(("line", "shown"), WHOLE)
def test_a_piece_that_is_no_secret_leaves_the_value_whole(line: str, shown: str) -> None:
    """Cut at the next name, `k9Fz2` and `Q` were each too short to be a secret, and the value,
    one secret before it was cut, was shown; a piece that is a secret is still one."""
    assert redact_text(line).text == mask(line) == mask_many([line, line])[1] == shown
    assert [line[f.start - 1] for f in find_secrets(line)] == ["="]


def test_the_staged_check_flags_the_whole_value(repo: NotesRepo) -> None:
    for n, (line, _) in enumerate(WHOLE):
        repo.note(f"n{n}.md", "Login", f"Log in with {line} today.")
    repo.git("add", "-A")
    config = Config(root=repo.root, index_path=repo.root / ".memidx" / "index.sqlite")

    found = check_secrets(config, [f"notes/n{n}.md" for n in range(len(WHOLE))])

    assert found == [f"notes/n{n}.md:5: secret-assignment" for n in range(len(WHOLE))]


def test_a_value_a_window_cut_short_ends_at_the_next_name() -> None:
    """On a long line the value a window's end cuts short is masked to the end of its run, which
    held the next assignment: its name went with it."""
    value = "Zq8WxY7vUt6SrQ5p" * 20
    line = "x " * LONG_LINE + f"password: {value},secret={SECOND} after"
    redacted = redact_text(line).text
    assert redacted.endswith(
        "password: [REDACTED:secret-assignment],secret=[REDACTED:secret-assignment] after"
    )
    line = "x " * LONG_LINE + f"password: {value},api_key=Q after"  # Q is no secret: to its end
    assert redact_text(line).text.endswith("password: [REDACTED:secret-assignment] after")


def test_names_within_a_value_stay_linear() -> None:
    """`password=x,secret=x,secret=...`: each name is read once, from its separator."""
    library.library_finders()
    find_secrets("password = warm")  # the keyword plugin loaded before timing
    small, large = (f"password={',secret=Zq8vN3kLp2' * n}" for n in (25, 400))
    ratio = fastest(large) / max(fastest(small), 1e-4)
    assert ratio < 64, f"16x the text took {ratio:.0f}x the time"


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ('password="Xy7$kq,token=abc"', 'password="[REDACTED:secret-assignment]"'),
        ("password: 'k9Fz2;secret=Q'", "password: '[REDACTED:secret-assignment]'"),
        ('secret = "s3cr&token=x1"', 'secret = "[REDACTED:secret-assignment]"'),
        ('{"password": "Xy7$kq,token=abc"}', '{"password": "[REDACTED:secret-assignment]"}'),
    ],
)
def test_a_quoted_value_is_one(line: str, shown: str) -> None:
    """A separator inside quotes is the value's own: cut there, each part was too short to be
    a secret and the whole value, masked before, was shown."""
    assert redact_text(line).text == shown
