"""Installing again changes nothing, for every agent and both scopes: from the same clone, from
another clone (a project's files are the same bytes whoever installs; a user's name the last
clone installed from, once), from a clone whose path Gemini CLI would expand, and over
entries an earlier memidx wrote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memidx.agents import install as install_module
from memidx.agents.install import clone_script
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


def fake_clone(root: Path, *venvs: str) -> Path:
    """A clone's source (memidx/agents/install.py) and a `bin/memidx` in each virtualenv."""
    source = root / "memidx" / "agents" / "install.py"
    source.parent.mkdir(parents=True)
    source.write_text("")
    for venv in venvs:
        script = root / venv / "bin" / "memidx"
        script.parent.mkdir(parents=True)
        script.write_text(f"#!{script.parent / 'python'}\n")
        script.chmod(0o755)
    return source


def test_a_clones_dev_virtualenv_names_its_dot_venv_memidx(tmp_path: Path) -> None:
    """`.venv-dev` and `.venv` both run the clone's code: a user install names `.venv`'s
    memidx from either; from another clone's code, or without a `.venv`, its own."""
    clone = tmp_path / "clone"
    source = fake_clone(clone, ".venv", ".venv-dev")
    dot_venv = clone / ".venv" / "bin" / "memidx"

    assert clone_script(clone / ".venv-dev" / "bin" / "python", source) == dot_venv
    assert clone_script(clone / ".venv" / "bin" / "python", source) is None  # its own
    other = fake_clone(tmp_path / "other", ".venv-dev")
    assert clone_script(tmp_path / "other" / ".venv-dev" / "bin" / "python", source) is None
    assert clone_script(tmp_path / "other" / ".venv-dev" / "bin" / "python", other) is None
    dot_venv.chmod(0o644)  # not runnable: not named
    assert clone_script(clone / ".venv-dev" / "bin" / "python", source) is None


def test_a_copied_clones_stale_dot_venv_is_never_named(tmp_path: Path) -> None:
    """A clone copied (`cp -a`) after `make install`: its `.venv/bin/memidx` still names the
    original's Python, which runs the original's code (README: `make install` makes it
    again). Installed from the copy's fresh `.venv-dev`, the files name that one's memidx."""
    clone = tmp_path / "copy"
    source = fake_clone(clone, ".venv", ".venv-dev")
    script = clone / ".venv" / "bin" / "memidx"
    script.write_text(f"#!{tmp_path / 'original' / '.venv' / 'bin' / 'python'}\n")
    assert clone_script(clone / ".venv-dev" / "bin" / "python", source) is None
    python = clone / ".venv" / "bin" / "python"  # as memidx.cli.venv_scripts writes it
    script.write_text(f"#!/bin/sh\n'''exec' '{python}' \"$0\" \"$@\"\n")
    assert clone_script(clone / ".venv-dev" / "bin" / "python", source) == script


PROJECT = Path(install_module.__file__).resolve().parents[2]
THIS_CLONES = [PROJECT / venv / "bin" / "memidx" for venv in (".venv-dev", ".venv")]


@pytest.mark.skipif(
    not all(os.access(script, os.X_OK) for script in THIS_CLONES)
    or Path(sys.executable).parent.parent.parent.resolve() != PROJECT,
    reason="needs this clone's .venv and .venv-dev (make venv dev), and runs from one of them",
)
@pytest.mark.parametrize("agent", AGENTS)
def test_installing_from_the_clones_dev_then_its_venv_changes_nothing(
    project: Path, agent: str
) -> None:
    """The user's files named `.venv-dev/bin/memidx` after an install from it, then
    `.venv/bin/memidx`: each install rewrote them (and backed them up) for the other."""
    said: list[str] = []
    for script in (*THIS_CLONES, *THIS_CLONES):
        done = subprocess.run(
            [str(script), "-C", str(project), "agent", "install", agent, "--scope", "user"],
            cwd=project, capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        said.append(done.stdout)

    lines = [line for out in said[1:] for line in out.splitlines()]
    assert all(line.startswith("unchanged: ") for line in lines), said
    written = "".join(f.path.read_text() for f in config_files(agent, "user", project))
    assert str(THIS_CLONES[1]) in written and ".venv-dev" not in written
