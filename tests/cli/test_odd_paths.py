"""A clone whose path holds `$`, a space, `'`, `"`, a backquote, `#` or `%` runs the README's
commands: `make install`'s virtualenv scripts, `make search`, `make path`, `make dev` and the
git hooks; a `:`, where Python makes no virtualenv, stops `make install` with one line."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any, cast

import pytest

from tests.cli.test_make import make_in, stand_in_python
from tests.helpers import memidx_agent, run_in_process
from tests.machines import clone, hook_env, make_template

PROJECT = Path(__file__).resolve().parents[2]
ODD = 'my $HOME it\'s "q" `b` #1 %2'


def made_lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [x for x in done.stderr.splitlines() if not x.startswith("make")]


def virtualenv(folder: Path) -> Path:
    """A real virtualenv in `folder/.venv` (no pip: quick) that imports this project's memidx,
    with `bin/memidx` as pip writes it for a path with a space: `'''exec' "PYTHON" ...`."""
    venv = folder / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(purelib) / "memidx-project.pth").write_text(f"{PROJECT}\n")
    memidx = venv / "bin" / "memidx"
    memidx.write_text(
        f"#!/bin/sh\n'''exec' \"{python}\" \"$0\" \"$@\"\n' '''\n"
        "import sys\nprint('memidx ran', *sys.argv[1:])\n"
    )
    memidx.chmod(0o755)
    (folder / "pyproject.toml").write_text("")
    (venv / ".installed").touch()
    return venv


def test_the_virtualenvs_scripts_run_from_a_clone_at_an_odd_path(tmp_path: Path) -> None:
    """pip's `'''exec' "PYTHON"` let sh expand `$HOME` (and end at the `"`): .venv/bin/memidx,
    and so make install's every step, the PATH link and the agents' hooks, ran a Python that
    does not exist (127)."""
    folder = tmp_path / ODD / "memidx"
    venv = virtualenv(folder)
    fixed = subprocess.run(
        [venv / "bin" / "python", "-m", "memidx.cli.venv_scripts"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert fixed.returncode == 0 and fixed.stderr == "", fixed.stderr
    ran = subprocess.run(
        [venv / "bin" / "memidx", "a b"], capture_output=True, text=True, check=False
    )
    assert (ran.returncode, ran.stdout) == (0, "memidx ran a b\n"), ran.stderr

    done = make_in(folder, "search", "Q=file lock")  # .venv is this folder's: not "moved"
    assert (done.returncode, done.stdout) == (0, "memidx ran search -- file lock\n"), done.stderr


def test_make_path_links_the_clone_at_an_odd_path(tmp_path: Path) -> None:
    """make path passed the clone's path in double quotes: `$HOME` in it was expanded, and the
    link named a folder that does not exist. A .venv made before (pip's script as pip wrote
    it) is requoted too."""
    folder = tmp_path / ODD / "memidx"
    venv = virtualenv(folder)
    bin_dir = tmp_path / "bin"
    done = make_in(folder, "path", MEMIDX_BIN_DIR=str(bin_dir))
    assert done.returncode == 0, done.stderr
    assert (bin_dir / "memidx").readlink() == venv / "bin" / "memidx"
    ran = subprocess.run([bin_dir / "memidx", "x"], capture_output=True, text=True, check=False)
    assert ran.stdout == "memidx ran x\n", ran.stderr  # make venv requoted pip's script


def test_make_dev_links_pre_commit_from_a_clone_at_an_odd_path(tmp_path: Path) -> None:
    folder = tmp_path / ODD / "clone"
    folder.mkdir(parents=True)
    (folder / "pyproject.toml").write_text("")
    stand_in_python(folder / ".venv", tmp_path / "calls.log")
    (folder / ".venv" / "bin" / "python3").rename(folder / ".venv" / "bin" / "python")
    (folder / ".venv" / ".installed").touch()
    done = make_in(folder, "dev")
    assert done.returncode == 0, done.stderr
    link = folder / ".venv-dev" / "bin" / "pre-commit"
    assert link.readlink() == folder / ".venv" / "bin" / "pre-commit"


def test_make_install_in_a_folder_with_a_colon_says_to_move_the_clone(tmp_path: Path) -> None:
    """Python's venv refuses a path with the PATH separator in it; make said so in Python's
    words and stopped, naming no way out."""
    folder = tmp_path / "notes:2026" / "memidx"
    folder.mkdir(parents=True)
    (folder / "pyproject.toml").write_text("")
    done = make_in(folder, "venv")
    assert done.returncode == 2
    assert made_lines(done) == [
        f'memidx: error: {folder}/.venv has a ":" in its path, where Python makes no '
        "virtualenv: clone or move memidx into a folder whose path has none"
    ]
    assert not (folder / ".venv").exists()


def test_the_git_hooks_bring_the_index_to_head_in_a_clone_at_an_odd_path(tmp_path: Path) -> None:
    root = tmp_path / ODD
    env = hook_env(root / "pre-commit-home")
    machine = clone(make_template(root, env), root / "a", env)
    machine.note("lock.md", "Lock", "A cron job takes a file lock with flock.")
    machine.git("add", "-A")
    machine.git("commit", "-q", "-m", "a note")  # the pre-commit checks, then post-commit
    hits = machine.memidx("search", "--json", "--mode", "bm25", "flock").json()["hits"]
    assert [h["ref"] for h in hits] == ["notes/lock.md"]


def odd_clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """(the virtualenv of a clone at an odd path, whose memidx this process now is; a project)."""
    venv = virtualenv(tmp_path / ODD / "memidx")
    subprocess.run([venv / "bin" / "python", "-m", "memidx.cli.venv_scripts"], check=True)
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    monkeypatch.setattr(sys, "executable", str(venv / "bin" / "python"))
    return venv, project


def claude_hook(settings: Path) -> str:
    return json.loads(settings.read_text())["hooks"]["Stop"][0]["hooks"][0]["command"]


@pytest.mark.parametrize("shell", ["/bin/sh", "bash"])
def test_the_agents_hooks_run_memidx_from_a_clone_at_an_odd_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shell: str
) -> None:
    """Agents run a hook's command through a shell: the user scope's names this clone's memidx
    (quoted), the project scope's finds it on PATH; both ran a Python that does not exist."""
    venv, project = odd_clone(tmp_path, monkeypatch)
    memidx_agent(project, "install", "claude-code", "--scope", "user")
    memidx_agent(project, "install", "claude-code", "--scope", "project")
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    for settings in (Path.home() / ".claude", project / ".claude"):
        command = claude_hook(settings / "settings.json")
        done = subprocess.run(
            [shell, "-c", command], env=env, capture_output=True, text=True, check=False
        )
        assert done.stdout == "memidx ran agent hook claude-code Stop\n", (command, done.stderr)


# Gemini CLI 0.61.0 replaces `$NAME`, `${NAME}` and `${NAME:-default}` in every string of its
# settings with the environment's values when it loads them (resolveEnvVarsInString in its
# bundle; no escape), before a hook's command reaches `bash -c`.
GEMINI_VARIABLE = re.compile(r"\$(?:(\w+)|\{([^}]+?)(?::-([^}]*))?\})", re.ASCII)


def gemini_reads(text: str, env: dict[str, str]) -> str:
    def value(found: re.Match[str]) -> str:
        name = found[1] or found[2] or ""
        if name in env:
            return env[name]
        return found[3] if found[3] is not None else found[0]

    return GEMINI_VARIABLE.sub(value, text)


def hook_commands(folder: Path, agent: str) -> list[str]:
    """Every command string of memidx's hooks for `agent` in the JSON files under `folder`."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for key, item in cast(dict[str, object], value).items():
                if key == "command" and isinstance(item, str) and f"agent hook {agent}" in item:
                    found.append(item)
                walk(item)
        elif isinstance(value, list):
            for item in cast(list[object], value):
                walk(item)

    for path in folder.rglob("*.json"):
        walk(json.loads(path.read_text()))
    return found


# How each agent runs a hook's command (memidx/agents/launcher.py): Claude Code `/bin/sh -c`,
# Codex CLI the login shell's `-c` (bash, or sh), Gemini CLI `bash -c` once it has read its
# settings, Cursor "a shell command" (sh or bash).
SHELLS = {"claude-code": ["/bin/sh"], "codex": ["bash", "/bin/sh"], "gemini": ["bash"],
          "cursor": ["/bin/sh", "bash"]}  # fmt: skip
AGENT_FOLDERS = {"claude-code": ".claude", "codex": ".codex", "gemini": ".gemini",
                 "cursor": ".cursor"}  # fmt: skip


@pytest.mark.parametrize("agent", list(SHELLS))
def test_every_agents_hook_commands_run_memidx_from_a_clone_at_an_odd_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent: str
) -> None:
    """Each command string as the agent runs it, both scopes: Gemini CLI expanded the `$HOME`
    of the clone's path in its settings before bash saw the quotes around it."""
    venv, project = odd_clone(tmp_path, monkeypatch)
    memidx_agent(project, "install", agent, "--scope", "user")
    memidx_agent(project, "install", agent, "--scope", "project")
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    user = hook_commands(Path.home(), agent)  # the agents' own variables are unset here
    shared = hook_commands(project / AGENT_FOLDERS[agent], agent)
    assert user and shared
    for written in {*user, *shared}:
        command = gemini_reads(written, env) if agent == "gemini" else written
        event = shlex.split(written)[-1]
        for shell in SHELLS[agent]:
            done = subprocess.run(
                [shell, "-c", command], env=env, capture_output=True, text=True, check=False
            )
            said = f"memidx ran agent hook {agent} {event}\n"
            assert done.stdout == said, (shell, command, done.stderr)


def test_gemini_starts_memidx_mcp_from_a_clone_at_an_odd_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gemini CLI expands `$HOME` in an MCP server's command and arguments as well: the user
    entry named a memidx that does not exist. Installing again changes nothing; status and
    uninstall know the entry as memidx's."""
    venv, project = odd_clone(tmp_path, monkeypatch)
    memidx_agent(project, "install", "gemini", "--scope", "user")
    settings = Path.home() / ".gemini" / "settings.json"
    server = json.loads(gemini_reads(settings.read_text(), dict(os.environ)))["mcpServers"]
    argv = [server["memidx"]["command"], *server["memidx"]["args"]]

    done = subprocess.run(argv, capture_output=True, text=True, check=False)

    assert done.stdout == "memidx ran mcp\n", (argv, done.stderr)
    assert "unchanged" in memidx_agent(project, "install", "gemini", "--scope", "user")
    [line] = [x for x in memidx_agent(project, "status").splitlines() if str(settings) in x]
    assert line.endswith("; MCP server memidx"), line  # memidx's, and its memidx is there
    (venv / "bin" / "memidx").rename(venv / "bin" / "moved")
    stranded = run_in_process(project, "agent", "status")  # a problem found: exit 1
    assert stranded.code == 1, stranded.err
    [line] = [x for x in stranded.out.splitlines() if str(settings) in x]
    gone = f"(they run {venv / 'bin' / 'memidx'}, which no longer exists: run `memidx agent"
    # a bare `memidx agent install` there installed Claude Code's hooks in the project
    assert line.endswith(f"{gone} install gemini --scope user` again from your memory's clone)")
    (venv / "bin" / "moved").rename(venv / "bin" / "memidx")
    memidx_agent(project, "uninstall", "gemini", "--scope", "user")
    assert "mcpServers" not in json.loads(settings.read_text() if settings.exists() else "{}")


# Claude Code replaces `${NAME}` and `${NAME:-default}` (not a bare `$NAME`) in an MCP
# server's command and args when it loads `.mcp.json` or `~/.claude.json`; no escape.
CLAUDE_VARIABLE = re.compile(r"\$\{([^}:]+)(?::-([^}]*))?\}")


def claude_reads(text: str, env: dict[str, str]) -> str:
    def value(found: re.Match[str]) -> str:
        if found[1] in env:
            return env[found[1]]
        return found[2] if found[2] is not None else found[0]

    return CLAUDE_VARIABLE.sub(value, text)


@pytest.mark.parametrize("scope", ["user", "project"])
def test_claude_code_starts_memidx_mcp_from_a_clone_whose_path_it_would_expand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scope: str
) -> None:
    """A clone at `.../${HOME}/memidx`: Claude Code put HOME's value in the user entry's
    command, a memidx that does not exist. Installing again changes nothing; status and
    uninstall know the entry as memidx's."""
    venv = virtualenv(tmp_path / "a ${HOME} ${NO_SUCH} $x" / "memidx")
    subprocess.run([venv / "bin" / "python", "-m", "memidx.cli.venv_scripts"], check=True)
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    monkeypatch.setattr(sys, "executable", str(venv / "bin" / "python"))
    monkeypatch.setenv("PATH", f"{venv / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin")
    memidx_agent(project, "install", "claude-code", "--scope", scope)
    path = Path.home() / ".claude.json" if scope == "user" else project / ".mcp.json"
    server = json.loads(claude_reads(path.read_text(), dict(os.environ)))["mcpServers"]["memidx"]
    argv = [server["command"], *server["args"]]

    done = subprocess.run(argv, capture_output=True, text=True, check=False)

    assert done.stdout == "memidx ran mcp\n", (argv, done.stderr)
    said = memidx_agent(project, "install", "claude-code", "--scope", scope)
    assert all(line.startswith("unchanged: ") for line in said.splitlines()), said
    [line] = [x for x in memidx_agent(project, "status").splitlines() if str(path) in x]
    assert line.endswith("MCP server memidx"), line
    memidx_agent(project, "uninstall", "claude-code", "--scope", scope)
    assert "mcpServers" not in json.loads(path.read_text() if path.exists() else "{}")


# A HOME whose value a shell would read as code: a backquoted command, a `$` variable, a `"`
# that ends a double-quoted word, a `'`, spaces. Gemini CLI pastes the value in for `$HOME`.
HOSTILE_HOME = 'home `touch pwned` $x "q" it\'s'
HOSTILE_ENV = {"x": "EXPANDED", "d": "/nowhere"}  # `$x` of HOME, and the resolver's own `$d`


def mcp_argvs(project: Path, agent: str) -> list[list[str]]:
    """The command and arguments of memidx's MCP server in the project's files of `agent`."""
    if agent == "codex":
        found = tomllib.loads((project / ".codex" / "config.toml").read_text())["mcp_servers"]
    else:
        file = {"claude-code": ".mcp.json", "gemini": ".gemini/settings.json",
                "cursor": ".cursor/mcp.json"}[agent]  # fmt: skip
        found = json.loads((project / file).read_text())["mcpServers"]
    server = cast(dict[str, Any], found["memidx"])
    return [[server["command"], *server["args"]]]


@pytest.mark.parametrize("agent", list(SHELLS))
def test_every_agents_project_commands_find_the_link_in_a_hostile_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent: str
) -> None:
    """A teammate without memidx on PATH runs `make install`'s link in their HOME. Gemini CLI
    pasted HOME's value into the MCP server's script: its backquotes ran as a command and the
    server did not start."""
    venv, project = odd_clone(tmp_path, monkeypatch)
    home = tmp_path / HOSTILE_HOME
    (home / ".local" / "bin").mkdir(parents=True)
    (home / ".local" / "bin" / "memidx").symlink_to(venv / "bin" / "memidx")
    memidx_agent(project, "install", agent, "--scope", "project")
    env = {"PATH": f"/usr/bin{os.pathsep}/bin", "HOME": str(home), **HOSTILE_ENV}
    ran = tmp_path / "cwd"
    ran.mkdir()

    def reads(word: str) -> str:
        return gemini_reads(word, env) if agent == "gemini" else word

    for written in hook_commands(project / AGENT_FOLDERS[agent], agent):
        for shell in SHELLS[agent]:
            done = subprocess.run([shell, "-c", reads(written)], env=env, cwd=ran,
                                  capture_output=True, text=True, check=False)  # fmt: skip
            said = f"memidx ran agent hook {agent} {shlex.split(written)[-1]}\n"
            assert done.stdout == said, (shell, written, done.stderr)
    for argv in mcp_argvs(project, agent):
        done = subprocess.run([reads(word) for word in argv], env=env, cwd=ran,
                              capture_output=True, text=True, check=False)  # fmt: skip
        assert done.stdout == "memidx ran mcp\n", (argv, done.stderr)
    assert list(ran.iterdir()) == []  # no backquote ran


def make_with(makefile: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`make -f MAKEFILE ARGS` run in `cwd`, not a sub-make of the `make test` running this."""
    made = ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEFILES")
    env = {k: v for k, v in os.environ.items() if k not in made}
    command = ["make", "--no-print-directory", "-f", str(makefile), *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def test_make_help_and_install_find_their_makefile_at_an_odd_path(tmp_path: Path) -> None:
    """make splits MAKEFILE_LIST at spaces: `make -f '<a b>/Makefile' help` read `<a` and
    `b>/Makefile` (awk: cannot open), and make install's sub-make for `path` read no -f at
    all, so from another folder it found no rule and memidx was left off the PATH."""
    clone = tmp_path / ODD
    clone.mkdir()
    shutil.copy(PROJECT / "Makefile", clone / "Makefile")
    work = tmp_path / "work dir"
    work.mkdir()
    (work / "pyproject.toml").write_text("")

    helped = make_with(clone / "Makefile", tmp_path, "help")
    planned = make_with(clone / "Makefile", tmp_path, "-n", "-C", str(work), "install")

    assert helped.returncode == 0 and helped.stderr == "", helped.stderr
    assert "make help       list the targets" in helped.stdout
    assert "make install " in helped.stdout and "make clean " in helped.stdout
    assert planned.returncode == 0, planned.stderr
    assert "No rule" not in planned.stderr and "warning" not in planned.stderr, planned.stderr
    assert "-m memidx.cli.path_link" in planned.stdout, planned.stdout
