"""Installing again changes nothing, for every agent and both scopes: from the same clone, from
another clone (a project's files are the same bytes whoever installs; a user's name the last
clone installed from, once), from a clone whose path Gemini CLI would expand, and over
entries an earlier memidx wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memidx.agents.installers import AGENTS, config_files
from tests.helpers import clone_at, memidx_agent, run_in_process

SCOPED = [a for a in AGENTS if a != "hermes"]  # Hermes has the user's configuration only


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def install(project: Path, agent: str, scope: str) -> list[str]:
    """Each line install printed, up to the file's path ("unchanged" or "installed into")."""
    said = memidx_agent(project, "install", agent, "--scope", scope)
    return [line.partition(" (backup")[0] for line in said.splitlines()]


def files(project: Path, agent: str, scope: str) -> dict[Path, str]:
    return {f.path: f.path.read_text() for f in config_files(agent, scope, project)}


@pytest.mark.parametrize("scope", ["user", "project"])
@pytest.mark.parametrize("agent", AGENTS)
def test_installing_again_from_the_same_or_another_clone_changes_nothing_more(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent: str, scope: str
) -> None:
    if agent == "hermes" and scope == "project":
        pytest.skip("Hermes has no project scope")
    clone_at(tmp_path / "a" / "memidx", monkeypatch)
    install(project, agent, scope)
    first = files(project, agent, scope)
    assert all(line.startswith("unchanged: ") for line in install(project, agent, scope))
    # another clone, at a path with a `$`, a space and quotes (Gemini CLI's user entry for it
    # is a script): a user install names it instead, once; a project's files stay as they were
    clone_at(tmp_path / "b $HOME 'q'" / "memidx", monkeypatch)
    install(project, agent, scope)
    second = files(project, agent, scope)

    assert all(line.startswith("unchanged: ") for line in install(project, agent, scope))
    assert files(project, agent, scope) == second
    if scope == "project":
        assert second == first
    else:
        assert second != first and "b $" in "".join(second.values())
        assert str(tmp_path / "a") not in "".join(second.values())
    hooks = [text.count(f"agent hook {agent}") for text in (*first.values(), *second.values())]
    assert hooks[: len(first)] == hooks[len(first) :]  # replaced, not added beside


@pytest.mark.parametrize("agent", SCOPED)
def test_the_project_files_are_the_same_bytes_from_any_clone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent: str
) -> None:
    written: list[dict[str, str]] = []
    for name in ("a", "b $x `c`"):
        root = tmp_path / name / "project"
        (root / ".git").mkdir(parents=True)
        clone_at(tmp_path / name / "memidx", monkeypatch)
        install(root, agent, "project")
        found = files(root, agent, "project")
        written.append({str(path.relative_to(root)): text for path, text in found.items()})

    assert written[0] == written[1]


EARLIER_GEMINI_SERVER = [  # the project's MCP entry before it was a script: Gemini CLI put
    "-c",  # HOME's value in place of its "$HOME"
    'command -v memidx >/dev/null 2>&1 && exec memidx "$@"; for d in "$MEMIDX_BIN_DIR" '
    '"$XDG_BIN_HOME" "$HOME/.local/bin"; do case $d in /*) [ -x "$d/memidx" ] && exec '
    '"$d/memidx" "$@"; break;; esac; done; exit 0',
    "memidx",
    "mcp",
]


def test_a_gemini_project_server_an_earlier_memidx_wrote_is_replaced_once(project: Path) -> None:
    install(project, "gemini", "project")
    settings = project / ".gemini" / "settings.json"
    doc = json.loads(settings.read_text())
    now = doc["mcpServers"]["memidx"]
    doc["mcpServers"]["memidx"] = {**now, "command": "/bin/sh", "args": EARLIER_GEMINI_SERVER}
    settings.write_text(json.dumps(doc))
    assert "MCP server memidx" in memidx_agent(project, "status")

    assert install(project, "gemini", "project") == [f"installed into {settings}"]
    assert json.loads(settings.read_text())["mcpServers"] == {"memidx": now}
    assert install(project, "gemini", "project") == [f"unchanged: {settings}"]
    memidx_agent(project, "uninstall", "gemini", "--scope", "project")
    assert not settings.exists()


@pytest.mark.parametrize("agent", SCOPED)
def test_a_project_install_in_the_home_folder_says_it_replaced_the_user_install(
    project: Path, agent: str
) -> None:
    """In the home folder (or a dotfiles repository around it) both scopes write the same file,
    so each install replaced the other's entries without a word."""
    home = Path.home()
    memidx_agent(home, "install", agent, "--scope", "user")

    done = run_in_process(home, "agent", "install", agent, "--scope", "project")

    assert done.code == 0
    assert f"is {agent}'s user file too" in done.err
    assert f"`memidx agent install {agent} --scope user` puts those back" in done.err
    elsewhere = run_in_process(project, "agent", "install", agent, "--scope", "project")
    assert elsewhere.code == 0 and "user file too" not in elsewhere.err
