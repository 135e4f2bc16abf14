"""`network_timeout` (MEMIDX_NETWORK_TIMEOUT): how long each git fetch or push of `memidx
share` may take, in seconds; 120 unless set, a positive whole number (else one line naming it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import ConfigError


@pytest.mark.parametrize(
    ("table", "env", "seconds"),
    [
        ("", {}, 120),
        ("network_timeout = 30\n", {}, 30),
        ("network_timeout = 30\n", {"MEMIDX_NETWORK_TIMEOUT": "7"}, 7),
        ("", {"MEMIDX_NETWORK_TIMEOUT": ""}, 120),  # empty counts as unset
    ],
)
def test_network_timeout_is_read_from_the_table_then_the_environment(
    tmp_path: Path, table: str, env: dict[str, str], seconds: int
) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.memidx]\n{table}")

    assert load_config(tmp_path, env=env).network_timeout == seconds


@pytest.mark.parametrize("value", ["0", "-5", "soon", "1.5"])
def test_a_network_timeout_that_is_no_positive_whole_number_is_named(
    tmp_path: Path, value: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(tmp_path, env={"MEMIDX_NETWORK_TIMEOUT": value})

    assert str(raised.value) == (
        f"environment: MEMIDX_NETWORK_TIMEOUT must be a positive whole number (got {value!r})"
    )


@pytest.mark.parametrize(
    ("table", "env", "said"),
    [
        ("", {"MEMIDX_NETWORK_TIMEOUT": "86401"}, "environment: MEMIDX_NETWORK_TIMEOUT"),
        ("", {"MEMIDX_NETWORK_TIMEOUT": "99999999"}, "environment: MEMIDX_NETWORK_TIMEOUT"),
        ("network_timeout = 1000000000000\n", {}, "pyproject.toml [tool.memidx]: network_timeout"),
    ],
)
def test_a_network_timeout_past_a_day_is_named(
    tmp_path: Path, table: str, env: dict[str, str], said: str
) -> None:
    """Past 2147483 s (24.8 days) each share ended in a traceback (OverflowError: timeout is
    too large, from the wait on git): a day is the most, said in one line."""
    (tmp_path / "pyproject.toml").write_text(f"[tool.memidx]\n{table}")

    with pytest.raises(ConfigError) as raised:
        load_config(tmp_path, env=env)

    assert str(raised.value).startswith(f"{said} must be at most 86400 seconds (a day)"), raised


def test_a_network_timeout_of_a_day_is_taken(tmp_path: Path) -> None:
    assert load_config(tmp_path, env={"MEMIDX_NETWORK_TIMEOUT": "86400"}).network_timeout == 86400
