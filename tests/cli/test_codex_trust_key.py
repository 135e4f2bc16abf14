"""The table header install tells the person to paste into Codex CLI's config.toml for a
project marked untrusted: `[projects."<root>"]` with the path bare, so a folder named with a
`"` or a `\\` gave a file neither Codex ("unclosed table, expected `]`") nor memidx could
read."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from tests.cli.test_agent_install_review3 import codex_servers, codex_status
from tests.helpers import run_in_process


@pytest.mark.parametrize("name", ['q"b\\c', "caf\u00e9 \\x", "t\u2028ab"])
def test_the_pasted_trust_header_is_toml_codex_reads(user_home: Path, name: str) -> None:
    project = user_home / name
    (project / ".git").mkdir(parents=True)
    user = user_home / ".codex" / "config.toml"
    user.parent.mkdir()
    root = project.resolve()
    user.write_text(f'[projects.{_escaped(str(root))}]\ntrust_level = "untrusted"\n')

    done = run_in_process(project, "agent", "install", "codex")
    said = re.search(r'set trust_level = "trusted" under (\[projects\..*\]) there', done.err)

    assert done.code == 0 and said is not None, done.err
    pasted = f'{said.group(1)}\ntrust_level = "trusted"\n'
    assert tomllib.loads(pasted) == {"projects": {str(root): {"trust_level": "trusted"}}}
    user.write_text(pasted)
    toml = project / ".codex" / "config.toml"
    assert codex_status(project)[str(toml)]["installed"] == ["MCP server memidx"]
    assert codex_servers(project) in (None, ["memidx"])  # the real Codex reads it, trusted


def _escaped(path: str) -> str:
    """`path` as a TOML basic string, written here by hand as a person would."""
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"').replace("\u2028", "\\u2028") + '"'
