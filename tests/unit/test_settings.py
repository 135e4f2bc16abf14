"""Yes-or-no settings (`hook_embed`, `fsync` in pyproject.toml or the environment, and
MEMIDX_MCP_SHARED) take the spellings the README lists, in any case; anything else is one
line naming the setting and every accepted spelling."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import ConfigError
from memidx.mcp.shared import SHARED_VARIABLE, wanted
from memidx.settings import FALSE, TRUE

SPELLINGS = [(word, True) for word in TRUE] + [(word, False) for word in FALSE] + [
    ("TRUE", True), (" Off ", False), ("Yes", True),
]  # fmt: skip


def memory(tmp_path: Path, table: str = "") -> Path:
    root = tmp_path / "memory"
    (root / ".git").mkdir(parents=True)
    (root / "notes").mkdir()
    (root / "pyproject.toml").write_text(f'[tool.memidx]\nnotes_dir = "notes"\n{table}')
    return root


def env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), **extra}


@pytest.mark.parametrize(("word", "value"), SPELLINGS)
def test_every_listed_spelling_is_read_from_the_environment(
    tmp_path: Path, word: str, value: bool
) -> None:
    given = env(tmp_path, MEMIDX_FSYNC=word, MEMIDX_HOOK_EMBED=word)
    config = load_config(memory(tmp_path), env=given)
    assert (config.fsync, config.hook_embed) == (value, value)


@pytest.mark.parametrize(
    ("toml", "value"),
    [("true", True), ("false", False), ('"yes"', True), ('"off"', False), ("1", True)],
)
def test_pyproject_takes_toml_booleans_and_the_same_spellings(
    tmp_path: Path, toml: str, value: bool
) -> None:
    root = memory(tmp_path, f"fsync = {toml}\nhook_embed = {toml}\n")
    config = load_config(root, env=env(tmp_path))
    assert (config.fsync, config.hook_embed) == (value, value)


@pytest.mark.parametrize(
    ("table", "variables", "named"),
    [
        ("", {"MEMIDX_FSYNC": "maybe"}, "environment: MEMIDX_FSYNC"),
        ("", {"MEMIDX_HOOK_EMBED": "y"}, "environment: MEMIDX_HOOK_EMBED"),
        ('fsync = "sometimes"\n', {}, "pyproject.toml [tool.memidx]: fsync"),
        ("hook_embed = 2\n", {}, "pyproject.toml [tool.memidx]: hook_embed"),
    ],
)
def test_an_unrecognised_value_is_one_line_naming_the_key_and_the_spellings(
    tmp_path: Path, table: str, variables: dict[str, str], named: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(memory(tmp_path, table), env=env(tmp_path, **variables))
    message = str(caught.value)
    assert "\n" not in message and named in message, message
    assert "true/1/yes/on or false/0/no/off" in message, message


@pytest.mark.parametrize(("word", "value"), [*SPELLINGS, ("", True)])
def test_the_shared_mcp_server_variable_takes_the_same_spellings(
    monkeypatch: pytest.MonkeyPatch, word: str, value: bool
) -> None:
    """Only "0" turned the shared server off: `MEMIDX_MCP_SHARED=false` left it on."""
    monkeypatch.setenv(SHARED_VARIABLE, word)
    assert wanted(own=False) is value
    assert wanted(own=True) is False


def test_an_unrecognised_shared_mcp_server_value_is_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(SHARED_VARIABLE, "nope")
    with pytest.raises(ConfigError) as caught:
        wanted(own=False)
    assert SHARED_VARIABLE in str(caught.value) and "\n" not in str(caught.value)
