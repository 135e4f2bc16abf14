"""Values given to secret-sounding names in every form the library's keyword rules read: a
name with no assignment after it, several values on one line, Go's `:=` and the C family's."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import redact_text

VALUE = "Zq8vN3kLp2Rt7Wx"
OTHER = "hV4mB9cQ1sXe6Ty"


@pytest.mark.parametrize(
    "line",
    [
        f'if (password !== "{VALUE}") {{ go() }}',
        f'if (password != "{VALUE}") return',
        f'db_password "{VALUE}";',
        f'ssl private_key "{VALUE}";',
        f'if "{VALUE}" == password {{ }}',
        f'"{VALUE}" != password',
    ],
)
def test_a_name_compared_or_closed_by_a_semicolon_is_read(line: str) -> None:
    """The library's comparison and `;` forms: no `=`, `:` or `(` follows the name."""
    assert VALUE not in redact_text(line).text
