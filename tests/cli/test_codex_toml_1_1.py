"""Codex CLI 0.171.0 reads TOML 1.1, whose inline table may span lines; memidx reads TOML 1.0
(tomllib before Python 3.15). Of such a config.toml, which Codex reads (`codex mcp list`
lists its servers), install and status said `not valid TOML ... (fix it: ...)`: the person
looked for a fault that is not there. The file is still left alone, and the line says what
to write instead."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest

from tests.cli.test_agent_install_real_clis import codex
from tests.helpers import run_in_process

TOML_1_1 = '[mcp_servers.other]\ncommand = "other-server"\nenv = {\n  K = "v",\n}\n'


def _reads_toml_1_1() -> bool:
    try:
        return tomllib.loads(TOML_1_1) != {}
    except tomllib.TOMLDecodeError:
        return False


@pytest.mark.skipif(_reads_toml_1_1(), reason="this tomllib reads TOML 1.1")
@pytest.mark.parametrize("command", ["install", "status"])
def test_a_codex_config_in_toml_1_1_is_left_alone_saying_how_to_write_it(
    user_home: Path, command: str
) -> None:
    config = user_home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(TOML_1_1)

    done = run_in_process(user_home, "agent", command, "codex", "--scope", "user")

    said = done.err if command == "install" else done.out
    assert done.code == 1 and config.read_text() == TOML_1_1, said
    assert f"{config}: " in said and "not valid TOML: " in said, said
    assert (
        "(fix it; if Codex CLI reads it, write its TOML 1.1 (`key = {` and the table's keys on"
        " lines of their own) as TOML 1.0 (on one line), which memidx reads: memidx left the"
        " file alone)"
    ) in said, said


@pytest.mark.skipif(shutil.which("codex") is None, reason="codex CLI not installed")
def test_codex_reads_the_toml_1_1_memidx_leaves_alone(user_home: Path) -> None:
    """What the line says rests on: the real Codex CLI lists the server of that file."""
    config = user_home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(TOML_1_1)

    listed = codex("mcp", "list", "--json")

    assert listed.returncode == 0, listed.stderr[-2000:]
    assert [s["name"] for s in json.loads(listed.stdout)] == ["other"]
