"""What the commands a project install writes do when an agent runs them, in the shells the
agents run them with (Claude Code 2.1.197: /bin/sh -c; Codex CLI 0.171.0 and Gemini CLI
0.61.0: bash -c): the memidx on PATH, else the installing clone's, else nothing and exit 0.
Stand-ins for both memidx programs print which one ran, with its arguments and its input."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from memidx.agents.launcher import portable_argv, portable_command
from tests.helpers import MEMIDX_BIN, memidx_agent

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


def installed(project: Path, clone: Path) -> dict[str, str]:
    """Some of the hook commands the install wrote, with the installing clone's memidx
    moved to `clone`."""
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    gemini = json.loads((project / ".gemini" / "settings.json").read_text())
    cursor = json.loads((project / ".cursor" / "hooks.json").read_text())
    commands = {
        "claude-code": settings["hooks"]["UserPromptSubmit"][-1]["hooks"][0]["command"],
        "gemini": gemini["hooks"]["BeforeAgent"][-1]["hooks"][0]["command"],
        "cursor": cursor["hooks"]["beforeSubmitPrompt"][-1]["command"],
    }
    return {agent: c.replace(str(MEMIDX_BIN), str(clone)) for agent, c in commands.items()}


def run(shell: str, command: str, path: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([shell, "-c", command], input='{"prompt": "hi"}', capture_output=True,
                          text=True, env={"PATH": path}, timeout=30, check=False)  # fmt: skip


@pytest.mark.parametrize("shell", SHELLS)
def test_the_hooks_run_the_memidx_on_path_first(project: Path, tmp_path: Path, shell: str) -> None:
    on_path = stand_in(tmp_path / "bin" / "memidx", "path")
    clone = stand_in(tmp_path / "clone" / "memidx", "clone")

    for agent, command in installed(project, clone).items():
        done = run(shell, command, f"{on_path.parent}:{BASE_PATH}")

        assert done.returncode == 0 and done.stderr == ""
        assert done.stdout.startswith(f"path:agent hook {agent} ")
        assert done.stdout.endswith(':{"prompt": "hi"}')  # the agent's input reaches memidx


@pytest.mark.parametrize("shell", SHELLS)
def test_without_memidx_on_path_the_hooks_run_the_installing_clones(
    project: Path, tmp_path: Path, shell: str
) -> None:
    clone = stand_in(tmp_path / "clone" / "memidx", "clone")
    dangling = tmp_path / "bin" / "memidx"  # a link left by a deleted clone
    dangling.parent.mkdir()
    dangling.symlink_to(tmp_path / "deleted" / "memidx")

    for agent, command in installed(project, clone).items():
        done = run(shell, command, f"{dangling.parent}:{BASE_PATH}")

        assert done.returncode == 0 and done.stderr == ""
        assert done.stdout.startswith(f"clone:agent hook {agent} ")


@pytest.mark.parametrize("shell", SHELLS)
def test_with_no_memidx_at_all_the_hooks_say_nothing_and_exit_0(
    project: Path, tmp_path: Path, shell: str
) -> None:
    commands = installed(project, tmp_path / "gone" / "memidx")

    done = {agent: run(shell, command, BASE_PATH) for agent, command in commands.items()}

    assert {agent: (d.returncode, d.stdout, d.stderr) for agent, d in done.items()} == {
        "claude-code": (0, "", ""),
        "gemini": (0, "{}", ""),  # Gemini CLI reads a hook's stdout as JSON
        "cursor": (0, '{"continue": true}', ""),  # what memidx answers: the prompt goes on
    }


def test_the_mcp_server_runs_the_same_way_without_a_shell(tmp_path: Path) -> None:
    """An agent starts an MCP server from its `command` and `args`, no shell around them."""
    on_path = stand_in(tmp_path / "bin" / "memidx", "path")
    clone = stand_in(tmp_path / "clone" / "memidx", "clone")

    def start(fallback: Path, path: str) -> str:
        argv = portable_argv([str(fallback)], ["mcp"])
        done = subprocess.run(argv, input="", capture_output=True, text=True,
                              env={"PATH": path}, timeout=30, check=False)  # fmt: skip
        assert done.returncode == 0 and done.stderr == ""
        return done.stdout

    assert start(clone, f"{on_path.parent}:{BASE_PATH}") == "path:mcp:"
    assert start(clone, BASE_PATH) == "clone:mcp:"
    assert start(tmp_path / "gone", BASE_PATH) == ""


@pytest.mark.parametrize("shell", SHELLS)
def test_a_clone_path_with_spaces_and_quotes_runs_as_written(tmp_path: Path, shell: str) -> None:
    clone = stand_in(tmp_path / "o'brien's memory" / ".venv" / "bin" / "memidx", "clone")

    done = run(shell, portable_command([str(clone)], ["agent", "hook", "gemini", "AfterAgent"],
                                       "{}"), BASE_PATH)  # fmt: skip

    assert (done.returncode, done.stdout, done.stderr) == (
        0, 'clone:agent hook gemini AfterAgent:{"prompt": "hi"}', ""
    )  # fmt: skip
