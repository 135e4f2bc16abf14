"""What the commands a project install writes do when an agent runs them, in the shells the
agents run them with (Claude Code 2.1.197: /bin/sh -c; Codex CLI 0.171.0 and Gemini CLI
0.61.0: bash -c): the memidx on PATH, else `make install`'s link in the user's bin folder
(~/.local/bin, MEMIDX_BIN_DIR, XDG_BIN_HOME), else nothing and exit 0. Stand-ins for memidx
print which one ran, with its arguments and its input."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from memidx.agents.launcher import portable_argv, portable_command
from tests.helpers import memidx_agent

SHELLS = [shell for shell in ("/bin/sh", shutil.which("bash")) if shell]
BASE_PATH = "/usr/bin:/bin"  # no memidx there (the suite's HOME and ~/.local/bin are its own)


def stand_in(path: Path, name: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\nprintf '%s' \"{name}:$*:\"; cat\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    for agent in ("claude-code", "gemini", "cursor"):
        memidx_agent(root, "install", agent, "--scope", "project")
    return root


def installed(project: Path) -> dict[str, str]:
    """Some of the hook commands the install wrote."""
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    gemini = json.loads((project / ".gemini" / "settings.json").read_text())
    cursor = json.loads((project / ".cursor" / "hooks.json").read_text())
    return {
        "claude-code": settings["hooks"]["UserPromptSubmit"][-1]["hooks"][0]["command"],
        "gemini": gemini["hooks"]["BeforeAgent"][-1]["hooks"][0]["command"],
        "cursor": cursor["hooks"]["beforeSubmitPrompt"][-1]["command"],
    }


def run(
    shell: str, command: str, path: str, home: Path, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run([shell, "-c", command], input='{"prompt": "hi"}', capture_output=True,
                          text=True, env={"PATH": path, "HOME": str(home), **env}, timeout=30,
                          check=False)  # fmt: skip


@pytest.mark.parametrize("shell", SHELLS)
def test_the_hooks_run_the_memidx_on_path_first(project: Path, tmp_path: Path, shell: str) -> None:
    on_path = stand_in(tmp_path / "bin" / "memidx", "path")
    home = tmp_path / "home"
    stand_in(home / ".local" / "bin" / "memidx", "link")

    for agent, command in installed(project).items():
        done = run(shell, command, f"{on_path.parent}:{BASE_PATH}", home)

        assert done.returncode == 0 and done.stderr == ""
        assert done.stdout.startswith(f"path:agent hook {agent} ")
        assert done.stdout.endswith(':{"prompt": "hi"}')  # the agent's input reaches memidx


@pytest.mark.parametrize("shell", SHELLS)
def test_without_memidx_on_path_the_hooks_run_make_installs_link(
    project: Path, tmp_path: Path, shell: str
) -> None:
    home = tmp_path / "home"
    stand_in(home / ".local" / "bin" / "memidx", "link")
    dangling = tmp_path / "bin" / "memidx"  # a link left by a deleted clone
    dangling.parent.mkdir()
    dangling.symlink_to(tmp_path / "deleted" / "memidx")

    for agent, command in installed(project).items():
        done = run(shell, command, f"{dangling.parent}:{BASE_PATH}", home)

        assert done.returncode == 0 and done.stderr == ""
        assert done.stdout.startswith(f"link:agent hook {agent} ")


@pytest.mark.parametrize("shell", SHELLS)
def test_the_link_is_looked_for_where_make_install_puts_it(
    project: Path, tmp_path: Path, shell: str
) -> None:
    xdg = stand_in(tmp_path / "xdg" / "memidx", "xdg")
    own = stand_in(tmp_path / "own" / "memidx", "own")
    command = installed(project)["claude-code"]
    home = tmp_path / "home"

    xdg_run = run(shell, command, BASE_PATH, home, XDG_BIN_HOME=str(xdg.parent))
    own_run = run(shell, command, BASE_PATH, home, XDG_BIN_HOME=str(xdg.parent),
                  MEMIDX_BIN_DIR=str(own.parent))  # fmt: skip

    assert xdg_run.stdout.startswith("xdg:agent hook claude-code ")
    assert own_run.stdout.startswith("own:agent hook claude-code ")


@pytest.mark.parametrize("shell", SHELLS)
def test_with_no_memidx_at_all_the_hooks_say_nothing_and_exit_0(
    project: Path, tmp_path: Path, shell: str
) -> None:
    commands = installed(project)
    home = tmp_path / "home"

    done = {agent: run(shell, command, BASE_PATH, home) for agent, command in commands.items()}

    assert {agent: (d.returncode, d.stdout, d.stderr) for agent, d in done.items()} == {
        "claude-code": (0, "", ""),
        "gemini": (0, "{}", ""),  # Gemini CLI reads a hook's stdout as JSON
        "cursor": (0, '{"continue": true}', ""),  # what memidx answers: the prompt goes on
    }


def test_the_mcp_server_runs_the_same_way_without_a_shell(tmp_path: Path) -> None:
    """An agent starts an MCP server from its `command` and `args`, no shell around them."""
    on_path = stand_in(tmp_path / "bin" / "memidx", "path")
    home, bare = tmp_path / "home", tmp_path / "bare"
    stand_in(home / ".local" / "bin" / "memidx", "link")

    def start(path: str, home: Path) -> str:
        done = subprocess.run(portable_argv(["mcp"]), input="", capture_output=True, text=True,
                              env={"PATH": path, "HOME": str(home)}, timeout=30,
                              check=False)  # fmt: skip
        assert done.returncode == 0 and done.stderr == ""
        return done.stdout

    assert start(f"{on_path.parent}:{BASE_PATH}", home) == "path:mcp:"
    assert start(BASE_PATH, home) == "link:mcp:"
    assert start(BASE_PATH, bare) == ""


@pytest.mark.parametrize("shell", SHELLS)
def test_a_home_with_spaces_and_quotes_runs_as_written(tmp_path: Path, shell: str) -> None:
    home = tmp_path / "o'brien's home"
    stand_in(home / ".local" / "bin" / "memidx", "link")

    done = run(shell, portable_command(["agent", "hook", "gemini", "AfterAgent"], "{}"),
               BASE_PATH, home)  # fmt: skip

    assert (done.returncode, done.stdout, done.stderr) == (
        0, 'link:agent hook gemini AfterAgent:{"prompt": "hi"}', ""
    )  # fmt: skip


@pytest.mark.parametrize("shell", SHELLS)
def test_a_relative_bin_folder_is_ignored_as_make_install_ignores_it(
    project: Path, tmp_path: Path, shell: str
) -> None:
    """A relative MEMIDX_BIN_DIR or XDG_BIN_HOME named whatever `memidx` the agent's working
    directory holds; `make install` (locations.bin_dir) ignores it, and so must the hooks."""
    home = tmp_path / "home"
    stand_in(home / ".local" / "bin" / "memidx", "link")
    stand_in(project / "own" / "memidx", "own")
    stand_in(project / "xdg" / "memidx", "xdg")
    command = installed(project)["claude-code"]
    env = {"PATH": BASE_PATH, "HOME": str(home)}

    def ran(**more: str) -> str:
        done = subprocess.run([shell, "-c", command], input="", capture_output=True,
                              text=True, cwd=project, env={**env, **more}, timeout=30,
                              check=False)  # fmt: skip
        assert (done.returncode, done.stderr) == (0, "")
        return done.stdout.partition(":")[0]

    assert ran(MEMIDX_BIN_DIR="own", XDG_BIN_HOME="xdg") == "link"
    assert ran(MEMIDX_BIN_DIR="own", XDG_BIN_HOME=str(project / "xdg")) == "xdg"
    assert ran(MEMIDX_BIN_DIR="", XDG_BIN_HOME="xdg") == "link"


EARLIER = (  # the resolver before a relative MEMIDX_BIN_DIR or XDG_BIN_HOME was ignored
    'command -v memidx >/dev/null 2>&1 && exec memidx "$@"; '
    'm="${MEMIDX_BIN_DIR:-${XDG_BIN_HOME:-$HOME/.local/bin}}/memidx"; '
    '[ -x "$m" ] && exec "$m" "$@"; '
)


def earlier(argv: list[str]) -> list[str]:
    """A portable argv as an earlier memidx wrote it."""
    return [*argv[:2], EARLIER + argv[2].rpartition("done; ")[2], *argv[3:]]


def test_entries_an_earlier_memidx_wrote_are_still_found_by_status_and_uninstall(
    tmp_path: Path,
) -> None:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    memidx_agent(root, "install", "claude-code", "--scope", "project")
    mcp, settings = root / ".mcp.json", root / ".claude" / "settings.json"
    doc = json.loads(mcp.read_text())
    server = doc["mcpServers"]["memidx"]
    argv = earlier([server["command"], *server["args"]])
    server["command"], server["args"] = argv[0], argv[1:]
    mcp.write_text(json.dumps(doc))
    hooks = json.loads(settings.read_text())
    for groups in hooks["hooks"].values():
        for hook in groups[-1]["hooks"]:
            hook["command"] = shlex.join(earlier(shlex.split(hook["command"])))
    settings.write_text(json.dumps(hooks))
    assert "m=" in mcp.read_text() and "m=" in settings.read_text()

    status = memidx_agent(root, "status")
    memidx_agent(root, "uninstall", "claude-code", "--scope", "project")

    assert "MCP server memidx" in status and "not memidx's" not in status
    assert not mcp.exists() and not settings.exists()
