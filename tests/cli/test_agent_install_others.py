"""`memidx agent install|uninstall|status` for Codex CLI, Gemini CLI and Cursor, in throwaway
homes: idempotent, every other setting kept, a backup of what changed, uninstall removes exactly
what was added (config.toml byte for byte, with its comments)."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest

from memidx.agents.backups import backup_folder
from memidx.agents.launcher import Launch, parse_launch
from tests.helpers import memidx_agent, run_in_process

THEIR_TOML = """# my codex settings
model = "o4"  # the default model

[mcp_servers.github]
command = "gh-mcp"
"""
THEIR_HOOKS = {"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "x"}]}]}}
THEIR_GEMINI = {"theme": "dark", "mcpServers": {"github": {"command": "gh-mcp"}}}
THEIR_CURSOR: dict[str, Any] = {"version": 1, "hooks": {"stop": [{"command": "./audit.sh"}]}}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A fresh repository (HOME and the agents' folders are the suite's throwaway ones:
    tests/conftest.py)."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def test_codex_user_install_keeps_config_toml_and_uninstall_restores_it(project: Path) -> None:
    codex = Path.home() / ".codex"
    codex.mkdir()
    (codex / "config.toml").write_text(THEIR_TOML)
    (codex / "hooks.json").write_text(json.dumps(THEIR_HOOKS))

    first = memidx_agent(project, "install", "codex", "--scope", "user")
    after = (codex / "config.toml").read_text()
    again = memidx_agent(project, "install", "codex", "--scope", "user")

    assert "backup" in first and again.count("unchanged") == 2
    assert after.startswith(THEIR_TOML)
    parsed = tomllib.loads(after)
    assert parsed["model"] == "o4" and set(parsed["mcp_servers"]) == {"github", "memidx"}
    assert parsed["mcp_servers"]["memidx"]["args"][-1] == "mcp"
    hooks = json.loads((codex / "hooks.json").read_text())["hooks"]
    assert {"SessionStart", "UserPromptSubmit", "Stop", "PreCompact"} <= set(hooks)
    assert hooks["Stop"][0] == THEIR_HOOKS["hooks"]["Stop"][0]
    status = memidx_agent(project, "status")
    assert "codex: " in status or "codex (user)" in status
    assert list(backup_folder(codex / "config.toml").glob("config.toml.memidx-backup-*"))

    memidx_agent(project, "uninstall", "codex", "--scope", "user")

    assert (codex / "config.toml").read_text() == THEIR_TOML
    assert json.loads((codex / "hooks.json").read_text()) == THEIR_HOOKS


def test_codex_project_install_into_a_fresh_repo_leaves_nothing_after_uninstall(
    project: Path,
) -> None:
    memidx_agent(project, "install", "codex", "--scope", "project")
    hooks = json.loads((project / ".codex" / "hooks.json").read_text())["hooks"]
    server = tomllib.loads((project / ".codex" / "config.toml").read_text())["mcp_servers"]
    # the team commits .codex/: memidx from PATH, else the user's link (tests/unit/test_launcher.py)
    prompt = shlex.split(hooks["UserPromptSubmit"][0]["hooks"][0]["command"])
    assert parse_launch(prompt) == Launch(("agent", "hook", "codex", "UserPromptSubmit"))
    argv = [server["memidx"]["command"], *server["memidx"]["args"]]
    assert parse_launch(argv) == Launch(("mcp",))

    memidx_agent(project, "uninstall", "codex", "--scope", "project")

    assert not (project / ".codex" / "hooks.json").exists()
    assert not (project / ".codex" / "config.toml").exists()


def test_codex_refuses_a_broken_config_toml_and_leaves_it(project: Path) -> None:
    (project / ".codex").mkdir()
    (project / ".codex" / "config.toml").write_text("model = \n")

    done = run_in_process(project, "agent", "install", "codex", "--scope", "project")

    assert done.code != 0 and "not valid TOML" in done.err
    assert (project / ".codex" / "config.toml").read_text() == "model = \n"


def test_gemini_install_twice_and_uninstall(project: Path) -> None:
    (project / ".gemini").mkdir()
    settings = project / ".gemini" / "settings.json"
    settings.write_text(json.dumps(THEIR_GEMINI))

    memidx_agent(project, "install", "gemini")
    once = settings.read_text()
    assert "unchanged" in memidx_agent(project, "install", "gemini")

    doc = json.loads(once)
    assert doc["theme"] == "dark" and set(doc["mcpServers"]) == {"github", "memidx"}
    assert {"SessionStart", "BeforeAgent", "AfterAgent", "PreCompress"} <= set(doc["hooks"])
    assert doc["hooks"]["BeforeAgent"][0]["hooks"][0]["timeout"] == 10_000  # milliseconds
    memidx_agent(project, "uninstall", "gemini")
    assert json.loads(settings.read_text()) == THEIR_GEMINI


def test_gemini_user_install_follows_gemini_cli_home(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gemini CLI reads the user's settings from $GEMINI_CLI_HOME/.gemini/ when it is set."""
    elsewhere = tmp_path / "gemini-home"
    monkeypatch.setenv("GEMINI_CLI_HOME", str(elsewhere))
    settings = elsewhere / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(THEIR_GEMINI))

    memidx_agent(project, "install", "gemini", "--scope", "user")

    assert not (Path.home() / ".gemini").exists()
    assert {"SessionStart", "BeforeAgent"} <= set(json.loads(settings.read_text())["hooks"])
    assert str(settings) in memidx_agent(project, "status")
    memidx_agent(project, "uninstall", "gemini", "--scope", "user")
    assert json.loads(settings.read_text()) == THEIR_GEMINI


def test_cursor_install_writes_hooks_mcp_and_the_rule_and_uninstall_removes_them(
    project: Path,
) -> None:
    (project / ".cursor").mkdir()
    (project / ".cursor" / "hooks.json").write_text(json.dumps(THEIR_CURSOR))

    memidx_agent(project, "install", "cursor")
    hooks = json.loads((project / ".cursor" / "hooks.json").read_text())
    rule = project / ".cursor" / "rules" / "memidx.mdc"
    assert "unchanged" in memidx_agent(project, "install", "cursor")

    assert hooks["version"] == 1
    assert hooks["hooks"]["stop"] == THEIR_CURSOR["hooks"]["stop"]
    assert hooks["hooks"]["sessionStart"][0]["command"].endswith("agent hook cursor sessionStart")
    assert "search" in rule.read_text() and "alwaysApply: true" in rule.read_text()
    mcp = json.loads((project / ".cursor" / "mcp.json").read_text())
    assert mcp["mcpServers"]["memidx"]["args"][-1] == "mcp"
    status = memidx_agent(project, "status")
    assert "rule memidx.mdc" in status

    memidx_agent(project, "uninstall", "cursor")

    assert json.loads((project / ".cursor" / "hooks.json").read_text()) == THEIR_CURSOR
    assert not rule.exists() and not (project / ".cursor" / "mcp.json").exists()


def test_cursor_install_again_moves_nothing_the_person_added_after_it(project: Path) -> None:
    hooks_json = project / ".cursor" / "hooks.json"
    hooks_json.parent.mkdir()
    theirs = {"hooks": {"stop": [{"command": "./audit.sh"}]}, "version": 2}
    hooks_json.write_text(json.dumps(theirs))
    memidx_agent(project, "install", "cursor")
    doc = json.loads(hooks_json.read_text())
    doc["hooks"]["sessionStart"].append({"command": "./theirs.sh"})
    hooks_json.write_text(json.dumps(doc, indent=2) + "\n")

    assert "unchanged" in memidx_agent(project, "install", "cursor").splitlines()[0]

    assert list(doc) == ["hooks", "version"] and doc["version"] == 2


@pytest.mark.parametrize(
    ("theirs", "expected"),
    [
        ("", "memory:\n  provider: memidx\n"),
        ("model: m  # mine\n", "model: m  # mine\n"),
        (
            "memory:\n    memory_enabled: true\nmodel: m\n",
            "    provider: memidx  # memidx: added\n",
        ),
        ("memory:\n  provider: honcho  # mine\n", "  provider: memidx  # memidx: was provider"),
    ],
)
def test_hermes_sets_memory_provider_in_place_and_uninstall_restores_it(
    project: Path, monkeypatch: pytest.MonkeyPatch, theirs: str, expected: str
) -> None:
    hermes = project.parent / "hermes-home"
    monkeypatch.setenv("HERMES_HOME", str(hermes))
    if theirs:
        hermes.mkdir()
        (hermes / "config.yaml").write_text(theirs)

    memidx_agent(project, "install", "hermes")
    config = (hermes / "config.yaml").read_text()
    assert "unchanged" in memidx_agent(project, "install", "hermes")

    assert expected in config
    status = memidx_agent(project, "status")
    assert "memory.provider: memidx" in status
    assert status.count(str(hermes / "config.yaml")) == 1  # one file, whatever the scope
    assert "MemidxMemoryProvider" in (hermes / "plugins" / "memidx" / "__init__.py").read_text()
    memidx_agent(project, "uninstall", "hermes")
    assert (
        (hermes / "config.yaml").read_text() == theirs
        if theirs
        else not hermes.joinpath("config.yaml").exists()
    )
    assert not (hermes / "plugins" / "memidx" / "__init__.py").exists()


def test_uninstall_removes_memidx_own_files_an_older_memidx_wrote(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hermes = project.parent / "hermes-home"
    monkeypatch.setenv("HERMES_HOME", str(hermes))
    memidx_agent(project, "install", "hermes")
    memidx_agent(project, "install", "cursor")
    plugin = hermes / "plugins" / "memidx" / "__init__.py"
    manifest = plugin.with_name("plugin.yaml")
    rule = project / ".cursor" / "rules" / "memidx.mdc"
    older = {  # as another clone, or an older memidx, wrote them
        plugin: re.sub(r"(?m)^MEMIDX = .*$", 'MEMIDX = ["/gone/memidx"]', plugin.read_text()),
        manifest: manifest.read_text().replace("version: 1.0.0", "version: 0.9.0"),
        rule: rule.read_text().replace("Before starting a task", "Before a task"),
    }
    for path, text in older.items():
        assert text != path.read_text()
        path.write_text(text)

    memidx_agent(project, "uninstall", "hermes")
    memidx_agent(project, "uninstall", "cursor")

    assert not plugin.exists() and not manifest.exists() and not rule.exists()
    kept = backup_folder(plugin).iterdir()
    backups = sorted(p.name.split(".memidx-backup-")[0] for p in kept)
    assert backups == ["__init__.py", "plugin.yaml"]  # not this memidx's text: kept aside


def test_gemini_settings_with_comments_are_left_alone_saying_why(project: Path) -> None:
    settings = project / ".gemini" / "settings.json"
    settings.parent.mkdir()
    theirs = '{\n  // my theme\n  "theme": "dark", /* "url": "http://x" */\n  "a": "//b"\n}\n'
    settings.write_text(theirs)

    done = run_in_process(project, "agent", "install", "gemini")

    assert done.code == 1 and "holds comments" in done.err
    assert settings.read_text() == theirs


@pytest.mark.parametrize(
    "theirs",
    ['model = "o4"  # no newline at the end', 'model = "o4"\r\n\r\n[profiles.a]\r\nx = 1\r\n'],
)
def test_codex_uninstall_gives_back_config_toml_byte_for_byte(project: Path, theirs: str) -> None:
    config = project / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_bytes(theirs.encode())

    memidx_agent(project, "install", "codex")
    assert tomllib.loads(config.read_text())["mcp_servers"]["memidx"]["args"][-1] == "mcp"
    memidx_agent(project, "uninstall", "codex")

    assert config.read_bytes() == theirs.encode()


@pytest.mark.parametrize(
    ("name", "text", "reason"),
    [
        (".codex/config.toml", "model = [[[\n", "not valid TOML"),
        (".codex/config.toml", "mcp_servers = 3\n", "mcp_servers is not a table"),
        (".cursor/hooks.json", "{not json", "not valid JSON"),
        (".cursor/hooks.json", '{"hooks": []}', '"hooks" is not an object'),
        (".cursor/hooks.json", '{"hooks": {"stop": 3}}', '"hooks".stop is not a list'),
    ],
)
def test_status_names_a_broken_codex_or_cursor_file_in_one_remark(
    project: Path, name: str, text: str, reason: str
) -> None:
    path = project / name
    path.parent.mkdir()
    path.write_text(text)

    status = run_in_process(project, "agent", "status")
    as_json = run_in_process(project, "agent", "status", "--json")
    agent = "codex" if name.startswith(".codex") else "cursor"
    install = run_in_process(project, "agent", "install", agent)

    remarks = [line for line in status.out.splitlines() if reason in line]
    assert len(remarks) == 1 and remarks[0].startswith(f"{agent} (project) {path}: unreadable:")
    assert remarks[0].count(str(path)) == 1  # the line names the file once
    # a problem found: every file is still reported, then status fails, saying why in one line
    assert status.code == 1 and len(status.out.splitlines()) > 1
    assert status.err == (
        "memidx: 1 agent configuration file could not be read (fix or move it, then run "
        "`memidx agent status` again)\n"
    )
    doc = json.loads(as_json.out)
    assert as_json.code == 1 and doc["healthy"] is False
    [row] = [r for r in doc["files"] if r["path"] == str(path)]
    assert reason in row["unreadable"] and row["installed"] == [f"unreadable: {row['unreadable']}"]
    assert all(r["unreadable"] is None for r in doc["files"] if r is not row)
    assert (install.code, path.read_text()) == (1, text)


def test_status_of_readable_files_is_healthy(project: Path) -> None:
    memidx_agent(project, "install", "cursor")

    done = run_in_process(project, "agent", "status", "--json")

    assert (done.code, done.err) == (0, "")
    assert json.loads(done.out)["healthy"] is True
