"""A user install names this clone's memidx by absolute path, so whatever the path holds must
reach the agent's file in a form the agent reads: Codex's `config.toml` is TOML, which has no
surrogate escapes (`\\ud83d\\ude00`, as json.dumps writes an emoji), so a clone under a folder
named with an emoji or a CJK extension character made the whole file unreadable to Codex."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from memidx.agents.toml_text import toml_string
from tests.helpers import clone_at, memidx_agent, run_in_process

ASTRAL = "clone 😀 𠀀"  # an emoji and a CJK Extension B character: both beyond U+FFFF


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.mark.parametrize(
    "text",
    ["/a/😀/b", "𠀀", "é ü 中", 'quote " and \\ backslash', "tab\tnew\nline\r\x00\x1b\x7f", ""],
)
def test_toml_strings_read_back_as_written(text: str) -> None:
    written = toml_string(text)

    assert tomllib.loads(f"x = {written}")["x"] == text
    assert written.isascii() and "\\ud8" not in written.lower()


def test_toml_strings_of_the_basic_plane_are_as_an_earlier_memidx_wrote_them() -> None:
    """The block an earlier memidx wrote (json.dumps) for a path it could write stays the
    same bytes: installing again changes nothing."""
    for text in ["/home/me/memidx", "/home/zoë/中文/memidx", 'a "b" \\ \t\x7f']:
        assert toml_string(text) == json.dumps(text)


def test_codex_user_install_from_a_clone_whose_path_holds_an_emoji(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memidx = clone_at(tmp_path / ASTRAL, monkeypatch)
    config = Path.home() / ".codex" / "config.toml"

    first = memidx_agent(project, "install", "codex", "--scope", "user")
    again = memidx_agent(project, "install", "codex", "--scope", "user")

    assert "installed into" in first and again.count("unchanged") == 2
    server = tomllib.loads(config.read_text(encoding="utf-8"))["mcp_servers"]["memidx"]
    assert (server["command"], server["args"]) == (str(memidx), ["mcp"])
    assert "MCP server memidx" in memidx_agent(project, "status")
    memidx_agent(project, "uninstall", "codex", "--scope", "user")
    assert not config.exists()


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini", "cursor"])
def test_a_clone_path_that_is_not_utf8_is_refused_in_one_line(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent: str
) -> None:
    """Its name held as surrogates: Codex's file said `not valid TOML`, the JSON files failed
    with a traceback (UnicodeEncodeError) at their write."""
    clone_at(tmp_path / os.fsdecode(b"clone-\xff"), monkeypatch)
    home = set(Path.home().rglob("*"))

    done = run_in_process(project, "agent", "install", agent, "--scope", "user")

    assert done.code == 1 and len(done.err.splitlines()) == 1, done.err
    assert "memidx's entries would name a path that is not UTF-8" in done.err
    assert set(Path.home().rglob("*")) == home  # nothing written, no backup made


@pytest.mark.skipif(shutil.which("codex") is None, reason="codex CLI not installed")
def test_codex_reads_the_config_of_a_clone_whose_path_holds_an_emoji(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real Codex CLI lists the server (it refused the whole file: `invalid value,
    expected unicode hexadecimal value`); `codex mcp list` starts no server, sends nothing."""
    memidx = clone_at(tmp_path / ASTRAL, monkeypatch)
    memidx_agent(project, "install", "codex", "--scope", "user")
    env = {"PATH": os.environ["PATH"], "HOME": str(Path.home()),
           "CODEX_HOME": str(Path.home() / ".codex")}  # fmt: skip

    done = subprocess.run(["codex", "mcp", "list", "--json"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip

    assert done.returncode == 0, done.stderr[-2000:]
    [server] = [s for s in json.loads(done.stdout) if s["name"] == "memidx"]
    assert server["transport"]["command"] == str(memidx)
