"""`memidx agent install|uninstall|status claude-code`: idempotent, keeps every other setting
and hook, backs up what it changes, removes exactly what it added."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from memidx.agents import install as install_module
from memidx.agents.backups import backup_folder
from memidx.agents.install import clone_script
from memidx.agents.launcher import Launch, parse_launch
from tests.helpers import MEMIDX_BIN, memidx_agent, run_in_process

THEIRS: dict[str, Any] = {
    "model": "opus",
    "enabledMcpjsonServers": ["github"],
    "hooks": {
        "UserPromptSubmit": [{"matcher": "", "hooks": [{"type": "command", "command": "lint"}]}],
        "Notification": [{"matcher": "", "hooks": [{"type": "command", "command": "notify"}]}],
    },
}
THEIR_MCP: dict[str, Any] = {"mcpServers": {"github": {"command": "gh-mcp", "args": []}}}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with the person's own Claude Code settings and MCP servers (HOME and the
    agents' folders are the suite's throwaway ones: tests/conftest.py)."""
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".claude" / "settings.json").write_text(json.dumps(THEIRS, indent=2))
    (root / ".mcp.json").write_text(json.dumps(THEIR_MCP))
    return root


def test_install_merges_and_twice_changes_nothing(project: Path) -> None:
    out = memidx_agent(project, "install", "claude-code", "--scope", "project")
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    after_first = (project / ".claude" / "settings.json").read_text()

    again = memidx_agent(project, "install", "claude-code", "--scope", "project")

    assert "backup" in out
    assert again.count("unchanged") == 3
    assert (project / ".claude" / "settings.json").read_text() == after_first
    assert settings["model"] == "opus"
    assert settings["enabledMcpjsonServers"] == ["github"]  # the approval is the person's own:
    local = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert local["enabledMcpjsonServers"] == ["memidx"]
    prompt_hooks = [h for g in settings["hooks"]["UserPromptSubmit"] for h in g["hooks"]]
    assert prompt_hooks[0]["command"] == "lint"
    assert prompt_hooks[1]["command"].endswith("agent hook claude-code UserPromptSubmit")
    assert settings["hooks"]["Notification"] == THEIRS["hooks"]["Notification"]
    mcp = json.loads((project / ".mcp.json").read_text())["mcpServers"]
    assert set(mcp) == {"github", "memidx"}
    backups = list(backup_folder(project / ".claude" / "settings.json").glob("settings.json.*"))
    assert len(backups) == 1 and json.loads(backups[0].read_text()) == THEIRS
    assert f"(backup: {backups[0]})" in out


def test_uninstall_removes_exactly_what_was_added(project: Path) -> None:
    memidx_agent(project, "install", "claude-code", "--scope", "project")

    memidx_agent(project, "uninstall", "claude-code", "--scope", "project")

    assert json.loads((project / ".claude" / "settings.json").read_text()) == THEIRS
    assert json.loads((project / ".mcp.json").read_text()) == THEIR_MCP


def test_dry_run_changes_nothing(project: Path) -> None:
    out = memidx_agent(project, "install", "claude-code", "--scope", "project", "--dry-run")

    assert "would install into" in out
    assert json.loads((project / ".claude" / "settings.json").read_text()) == THEIRS
    assert not list((project / ".claude").glob("*.memidx-backup-*"))


def test_hermes_with_project_scope_says_it_means_the_users_configuration(project: Path) -> None:
    """Hermes has one configuration, the user's: `--scope project` wrote it in silence."""
    done = run_in_process(project, "agent", "install", "hermes", "--scope", "project", "--dry-run")

    assert done.code == 0, done.err
    assert "Hermes has no project scope" in done.err and str(Path.home()) in done.err
    assert done.err.count("Hermes") == 1 and "would install into" in done.out


def test_user_scope_writes_the_users_files_and_status_lists_them(project: Path) -> None:
    home = Path.home()
    memidx_agent(project, "install", "claude-code", "--scope", "user")

    status = memidx_agent(project, "status")

    user = json.loads((home / ".claude" / "settings.json").read_text())
    assert "SessionStart" in user["hooks"]
    assert "memidx" in json.loads((home / ".claude.json").read_text())["mcpServers"]
    assert f"claude-code (user) {home / '.claude' / 'settings.json'}: hooks: " in status
    assert f"claude-code (user) {home / '.claude.json'}: MCP server memidx" in status
    assert "claude-code (project)" in status and "nothing of memidx" in status
    memidx_agent(project, "uninstall", "claude-code", "--scope", "user")
    assert not (home / ".claude" / "settings.json").exists()  # memidx had made it


def test_a_broken_settings_file_is_left_alone(project: Path) -> None:
    (project / ".claude" / "settings.json").write_text("{ not json")

    done = run_in_process(project, "agent", "install", "claude-code")

    assert done.code == 1
    assert ": not valid JSON" in done.err and "memidx left the file alone" in done.err
    assert (project / ".claude" / "settings.json").read_text() == "{ not json"


def test_a_broken_file_stops_the_install_before_any_file_is_written(project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    before = settings.read_text()
    (project / ".mcp.json").write_text("{ not json")

    done = run_in_process(project, "agent", "install", "claude-code")

    assert done.code == 1 and ".mcp.json: not valid JSON" in done.err
    assert settings.read_text() == before  # not half installed: the hooks without the server
    assert not (project / ".claude" / "settings.local.json").exists()
    assert not list(project.rglob("*.memidx-backup-*"))


def test_a_broken_file_stops_the_uninstall_before_any_file_is_written(project: Path) -> None:
    memidx_agent(project, "install", "claude-code")
    settings = project / ".claude" / "settings.json"
    installed = settings.read_text()
    (project / ".mcp.json").write_text("{ not json")

    done = run_in_process(project, "agent", "uninstall", "claude-code")

    assert done.code == 1 and ".mcp.json: not valid JSON" in done.err
    assert settings.read_text() == installed


def test_a_symlinked_settings_file_stays_a_link_and_keeps_its_mode(
    project: Path, tmp_path: Path
) -> None:
    dotfiles = tmp_path / "dotfiles" / "settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text(json.dumps(THEIRS, indent=2))
    dotfiles.chmod(0o600)
    settings = project / ".claude" / "settings.json"
    settings.unlink()
    settings.symlink_to(dotfiles)

    memidx_agent(project, "install", "claude-code")

    assert settings.is_symlink() and settings.resolve() == dotfiles
    assert "SessionStart" in json.loads(dotfiles.read_text())["hooks"]
    assert dotfiles.stat().st_mode & 0o777 == 0o600
    memidx_agent(project, "uninstall", "claude-code")
    assert settings.is_symlink() and json.loads(dotfiles.read_text()) == THEIRS
    assert dotfiles.stat().st_mode & 0o777 == 0o600


def test_uninstall_gives_back_each_file_byte_for_byte(project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    theirs = '{\n    "model": "opus",\n    "hooks": {},\n    "env": {"A": "\\u00e9"}\n}\n'
    settings.write_text(theirs)
    (project / ".mcp.json").write_text('{"mcpServers": {}}')
    (project / ".claude" / "settings.local.json").write_text("")

    memidx_agent(project, "install", "claude-code")
    assert '\n    "model": "opus",' in settings.read_text()  # the file's own indentation
    memidx_agent(project, "uninstall", "claude-code")

    assert settings.read_text() == theirs
    assert (project / ".mcp.json").read_text() == '{"mcpServers": {}}'
    assert (project / ".claude" / "settings.local.json").read_text() == ""


@pytest.mark.parametrize("action", ["install", "uninstall"])
def test_an_mcp_server_named_memidx_that_memidx_did_not_write_is_left_alone(
    project: Path, action: str
) -> None:
    theirs = {"mcpServers": {"memidx": {"command": "npx", "args": ["their-memidx"]}}}
    (project / ".mcp.json").write_text(json.dumps(theirs))
    settings = (project / ".claude" / "settings.json").read_text()

    done = run_in_process(project, "agent", action, "claude-code")

    assert json.loads((project / ".mcp.json").read_text()) == theirs
    assert (project / ".claude" / "settings.json").read_text() == settings
    assert done.code == (1 if action == "install" else 0)
    assert action == "uninstall" or "memidx did not add" in done.err


def test_an_older_clones_mcp_server_is_replaced(project: Path) -> None:
    old = {"type": "stdio", "command": "/gone/clone/.venv/bin/memidx", "args": ["mcp"]}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"memidx": old}}))

    memidx_agent(project, "install", "claude-code")

    server = json.loads((project / ".mcp.json").read_text())["mcpServers"]["memidx"]
    assert server["command"] != old["command"] and server["args"][-1] == "mcp"


def test_install_warns_when_the_hooks_would_not_reach_this_memory(
    project: Path, tmp_path: Path
) -> None:
    memory = tmp_path / "memory"
    (memory / ".memidx").mkdir(parents=True)

    unrecorded = run_in_process(memory, "agent", "install", "claude-code", "--scope", "user")
    assert run_in_process(memory, "memory", "use", str(memory)).code == 0
    recorded = run_in_process(memory, "agent", "install", "claude-code", "--scope", "user")

    assert unrecorded.code == 0 and "records no memory" in unrecorded.err
    assert f"memidx memory use {memory}" in unrecorded.err
    assert recorded.code == 0 and "warning" not in recorded.err


def test_uninstall_after_an_install_by_another_clone_leaves_none_of_memidx(
    project: Path,
) -> None:
    settings = project / ".claude" / "settings.json"
    memidx_agent(project, "install", "claude-code")
    older = re.sub(
        r'"command": "(?:[^"\\]|\\.)*memidx (agent hook [^"]*)"',
        r'"command": "/gone/clone/.venv/bin/memidx \1"',
        settings.read_text(),
    )
    settings.write_text(older)  # as another clone of memidx installed it (by absolute path)
    memidx_agent(project, "install", "claude-code")  # this clone: its backup holds the other's

    memidx_agent(project, "uninstall", "claude-code")

    assert json.loads(settings.read_text()) == THEIRS


def test_install_again_keeps_what_the_person_added_to_memidx_entries(project: Path) -> None:
    memidx_agent(project, "install", "claude-code")
    mcp_json, settings = project / ".mcp.json", project / ".claude" / "settings.json"
    mcp = json.loads(mcp_json.read_text())
    mcp["mcpServers"]["memidx"]["env"] = {"MEMIDX_ROOT": "/home/me/memory"}
    mcp_json.write_text(json.dumps(mcp, indent=2) + "\n")
    doc = json.loads(settings.read_text())
    doc["hooks"]["Stop"][-1]["hooks"][0]["async"] = True
    settings.write_text(json.dumps(doc, indent=2) + "\n")

    again = memidx_agent(project, "install", "claude-code")

    assert again.count("unchanged") == 3
    assert json.loads(mcp_json.read_text()) == mcp and json.loads(settings.read_text()) == doc


def test_status_says_when_the_hooks_run_a_memidx_that_is_gone(project: Path) -> None:
    """The clone that installed them was moved or deleted: every hook the agent runs fails
    with `not found`, and status listed them as installed, as if all was well. (A user's own
    files name the clone's memidx by absolute path.)"""
    memidx_agent(project, "install", "claude-code", "--scope", "user")
    settings, mcp = Path.home() / ".claude" / "settings.json", Path.home() / ".claude.json"
    assert "no longer exists" not in memidx_agent(project, "status")
    for path in (settings, mcp):
        path.write_text(
            re.sub(r'"[^" ]*/bin/memidx', '"/gone/clone/.venv/bin/memidx', path.read_text())
        )

    said = run_in_process(project, "agent", "status")
    listed = run_in_process(project, "agent", "status", "--json")

    status = said.out
    assert (said.code, listed.code, json.loads(listed.out)["healthy"]) == (1, 1, False)
    assert said.err == (  # it said healthy, exit 0, while every hook the agent ran failed
        "memidx: 2 agent configuration files run a memidx that is not there: the agent's "
        "every call of it fails (run the install its line names, then `memidx agent status` "
        "again)\n"
    )
    gone = (  # the install to run names the agent and scope: a bare one installs another's
        " (they run /gone/clone/.venv/bin/memidx, which no longer exists: run `memidx agent "
        "install claude-code --scope user` again from your memory's clone)"
    )
    assert re.search(rf"{re.escape(str(settings))}: hooks: [A-Za-z, ]+{re.escape(gone)}\n", status)
    assert f"{mcp}: MCP server memidx{gone}\n" in status


def our_commands(settings: Path) -> dict[str, list[str]]:
    """event: the commands of memidx's hooks for it."""
    found: dict[str, list[str]] = {}
    for event, groups in json.loads(settings.read_text())["hooks"].items():
        commands = [h["command"] for g in groups for h in g["hooks"]]
        if ours := [c for c in commands if "agent hook" in c]:
            found[event] = ours
    return found


def test_a_project_install_runs_memidx_from_path_else_the_users_link(project: Path) -> None:
    """A project's files are committed: a teammate has no memidx at this clone's path, and
    two teammates who both install must not rewrite each other's entries."""
    memidx_agent(project, "install", "claude-code", "--scope", "project")

    commands = our_commands(project / ".claude" / "settings.json")
    server = json.loads((project / ".mcp.json").read_text())["mcpServers"]["memidx"]

    assert set(commands) >= {"SessionStart", "UserPromptSubmit", "Stop", "PreCompact"}
    for event, (command,) in commands.items():
        launch = parse_launch(shlex.split(command))
        assert launch == Launch(("agent", "hook", "claude-code", event))
    assert parse_launch([server["command"], *server["args"]]) == Launch(("mcp",))
    for path in (project / ".claude" / "settings.json", project / ".mcp.json"):
        assert str(MEMIDX_BIN) not in path.read_text() and "/.venv/" not in path.read_text()


def test_a_user_install_keeps_this_clones_absolute_path(project: Path) -> None:
    memidx_agent(project, "install", "claude-code", "--scope", "user")

    commands = our_commands(Path.home() / ".claude" / "settings.json")
    server = json.loads((Path.home() / ".claude.json").read_text())["mcpServers"]["memidx"]

    # the clone's .venv memidx when this runs from its .venv-dev (test_agent_reinstall.py)
    this = clone_script(Path(sys.executable), Path(install_module.__file__)) or MEMIDX_BIN
    assert commands["Stop"] == [f"{this} agent hook claude-code Stop"]
    assert (server["command"], server["args"]) == (str(this), ["mcp"])


def test_installing_over_an_absolute_path_install_replaces_it(project: Path) -> None:
    """A project installed by an earlier memidx (each entry this clone's absolute path) is
    brought to the portable form, one hook per event; uninstall then leaves none of either."""
    settings, mcp_json = project / ".claude" / "settings.json", project / ".mcp.json"
    old = "/home/alice/memory/.venv/bin/memidx"
    earlier = json.loads(json.dumps(THEIRS))
    for event in ("SessionStart", "UserPromptSubmit", "Stop", "PreCompact"):
        hook = {"type": "command", "command": f"{old} agent hook claude-code {event}"}
        earlier["hooks"].setdefault(event, []).append({"matcher": "", "hooks": [hook]})
    settings.write_text(json.dumps(earlier, indent=2))
    mcp = {"mcpServers": {**THEIR_MCP["mcpServers"], "memidx": {"command": old, "args": ["mcp"]}}}
    mcp_json.write_text(json.dumps(mcp))

    memidx_agent(project, "install", "claude-code", "--scope", "project")
    again = memidx_agent(project, "install", "claude-code", "--scope", "project")

    assert again.count("unchanged") == 3
    commands = our_commands(settings)
    assert all(len(found) == 1 for found in commands.values()), commands
    assert all(parse_launch(shlex.split(c)) for (c,) in commands.values())
    assert old not in mcp_json.read_text()
    server = json.loads(mcp_json.read_text())["mcpServers"]["memidx"]
    assert parse_launch([server["command"], *server["args"]]) is not None

    memidx_agent(project, "uninstall", "claude-code", "--scope", "project")

    assert json.loads(settings.read_text()) == THEIRS
    assert json.loads(mcp_json.read_text()) == THEIR_MCP


def test_a_project_install_warns_a_person_for_whom_its_hooks_would_do_nothing(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("MEMIDX_BIN_DIR", str(tmp_path / "no-links"))

    done = run_in_process(project, "agent", "install", "claude-code", "--scope", "project")
    user = run_in_process(project, "agent", "install", "claude-code", "--scope", "user")

    assert done.code == 0
    assert (
        "memidx: warning: the project's hooks and MCP server: they run the memidx on your PATH, "
        f"else {tmp_path / 'no-links' / 'memidx'}; neither is here, so they do nothing: run "
        "`make install` in your memory's clone\n"
    ) in done.err
    assert "neither is here" not in user.err  # a user install runs this clone's memidx


@pytest.mark.parametrize(
    ("memidx_on_path", "link_there"), [(True, False), (False, True), (True, True), (False, False)]
)
def test_status_of_a_project_install_says_when_no_memidx_would_run(
    project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    memidx_on_path: bool,
    link_there: bool,
) -> None:
    """The portable hooks of a teammate without memidx do nothing: status says so, and says
    nothing while a memidx on PATH or `make install`'s link would run."""
    memidx_agent(project, "install", "claude-code", "--scope", "project")
    bin_dir, link_dir = tmp_path / "bin", tmp_path / "links"
    bin_dir.mkdir()
    link_dir.mkdir()
    if memidx_on_path:
        (bin_dir / "memidx").symlink_to(MEMIDX_BIN)
    if link_there:
        (link_dir / "memidx").symlink_to(MEMIDX_BIN)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("MEMIDX_BIN_DIR", str(link_dir))
    warned = not memidx_on_path and not link_there

    status = memidx_agent(project, "status")

    said = (
        f" (they run the memidx on your PATH, else {link_dir / 'memidx'}; neither is here, so "
        "they do nothing: run `make install` in your memory's clone)"
    )
    settings = project / ".claude" / "settings.json"
    assert (f"{project / '.mcp.json'}: MCP server memidx{said}\n" in status) == warned
    assert bool(re.search(rf"{re.escape(str(settings))}: hooks: [A-Za-z, ]+{re.escape(said)}\n",
                          status)) == warned  # fmt: skip
    assert "no longer exists" not in status and (warned or "neither" not in status)


def test_hermes_without_scope_installs_the_users_configuration_without_a_project_warning(
    project: Path,
) -> None:
    """`--scope project` is the default: every `memidx agent install hermes` warned of a flag
    that was never typed, and took the project's warnings (the memidx on PATH that the
    project's hooks run), none of which Hermes's plugin, with its absolute command, has."""
    done = run_in_process(project, "agent", "install", "hermes")

    assert done.code == 0, done.err
    assert (Path.home() / ".hermes" / "plugins" / "memidx" / "plugin.yaml").is_file()
    assert "no project scope" not in done.err and "the project's" not in done.err, done.err
