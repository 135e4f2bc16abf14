"""`memidx agent install|uninstall` meeting the agents' own writers and readers: the real Codex
CLI rewrites `config.toml` (`codex mcp add`) and lists its servers (`codex mcp list`, which
starts none and sends nothing), in a throwaway CODEX_HOME. Skipped without the CLI; each
`codex` run takes ~0.3 s."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import memidx_agent

pytestmark = pytest.mark.skipif(shutil.which("codex") is None, reason="codex CLI not installed")


def codex(*args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ["PATH"], "HOME": str(Path.home()),
           "CODEX_HOME": str(Path.home() / ".codex")}  # fmt: skip
    return subprocess.run(["codex", *args], cwd=Path.home(), env=env, capture_output=True,
                          text=True, timeout=120, check=False)  # fmt: skip


def test_after_codex_mcp_add_memidx_still_reinstalls_and_uninstalls_its_server(
    tmp_path: Path,
) -> None:
    """`codex mcp add` writes config.toml back without its comments, memidx's begin marker
    with them: install again stopped, and uninstall left memidx's server for Codex to start."""
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    toml = Path.home() / ".codex" / "config.toml"
    toml.parent.mkdir()
    toml.write_text('model = "o3"\n')
    memidx_agent(project, "install", "codex", "--scope", "user")
    assert codex("mcp", "add", "github", "--", "gh-mcp").returncode == 0
    assert "# >>> memidx" not in toml.read_text()  # what Codex 0.171.0 does

    memidx_agent(project, "install", "codex", "--scope", "user")
    listed = codex("mcp", "list", "--json")
    memidx_agent(project, "uninstall", "codex", "--scope", "user")
    left = codex("mcp", "list", "--json")

    assert listed.returncode == 0, listed.stderr[-2000:]
    assert sorted(s["name"] for s in json.loads(listed.stdout)) == ["github", "memidx"]
    assert left.returncode == 0, left.stderr[-2000:]
    assert [s["name"] for s in json.loads(left.stdout)] == ["github"]
    assert "memidx" not in toml.read_text()


def test_codex_lists_memidx_server_from_a_config_toml_that_starts_with_a_byte_order_mark(
    tmp_path: Path,
) -> None:
    """Codex reads past the mark (memidx refused the file as `not valid TOML`), and so it
    still does once memidx's block is in."""
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    toml = Path.home() / ".codex" / "config.toml"
    toml.parent.mkdir()
    toml.write_bytes('\ufeff[mcp_servers.github]\r\ncommand = "gh-mcp"\r\n'.encode())

    memidx_agent(project, "install", "codex", "--scope", "user")
    listed = codex("mcp", "list", "--json")

    assert listed.returncode == 0, listed.stderr[-2000:]
    assert sorted(s["name"] for s in json.loads(listed.stdout)) == ["github", "memidx"]
    assert toml.read_bytes().startswith("\ufeff[mcp_servers.github]\r\n".encode())
