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


def test_a_project_reached_through_a_symlink_is_trusted_by_its_real_path(user_home: Path) -> None:
    """Codex 0.171.0 (run offline from `link/proj`) takes `[projects."<real path>"]` for the
    project and not the path as typed through a symbolic link: memidx reads the same key, so
    install and status say what Codex does (its MCP server listed, or left out)."""
    real = user_home / "real" / "proj"
    (real / ".git").mkdir(parents=True)
    (user_home / "link").symlink_to(user_home / "real")
    project = user_home / "link" / "proj"
    user = user_home / ".codex" / "config.toml"
    user.parent.mkdir()
    toml = project / ".codex" / "config.toml"
    for key, trusted in ((project, False), (real.resolve(), True)):
        user.write_text(f'[projects.{_escaped(str(key))}]\ntrust_level = "trusted"\n')

        done = run_in_process(project, "agent", "install", "codex")

        assert done.code == 0 and ("is not trusted yet" not in done.err) == trusted, done.err
        said = codex_status(project)[str(real.resolve() / ".codex" / "config.toml")]["installed"]
        assert (said == ["MCP server memidx"]) == trusted, said
        assert codex_servers(project) in (None, ["memidx"] if trusted else [])
    assert toml.exists()
