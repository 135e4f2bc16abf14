"""`memidx agent install|uninstall|status` at the edges of what people do to memidx's entries:
a dry run of an uninstall that would remove a change of theirs, flags and lines they added to
memidx's Codex block, hooks the agent itself has switched off. In-process, on real files in a
throwaway HOME: each test costs well under a second."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from memidx.agents.backups import backup_folder
from memidx.agents.text_install import END
from tests.cli.test_agent_install_real_clis import codex
from tests.helpers import run_in_process


def project_in(home: Path) -> Path:
    project = home / "project"
    (project / ".git").mkdir(parents=True)
    return project


def test_a_dry_run_uninstall_says_a_backup_would_keep_the_persons_changes(
    user_home: Path,
) -> None:
    """`--dry-run` said "(the backup keeps them)" of a backup that did not exist (memidx made
    `.mcp.json`: no backup of it was ever taken); it says what uninstall would do, and the
    real uninstall then takes the backup that keeps them."""
    project = project_in(user_home)
    assert run_in_process(project, "agent", "install", "claude-code").code == 0
    mcp = project / ".mcp.json"
    doc = json.loads(mcp.read_text())
    doc["mcpServers"]["memidx"]["env"] = {"MEMIDX_ROOT": "/srv/team"}
    mcp.write_text(json.dumps(doc))

    dry = run_in_process(project, "agent", "uninstall", "claude-code", "--dry-run")
    dry_json = run_in_process(project, "agent", "uninstall", "claude-code", "--dry-run", "--json")

    assert dry.code == 0 and dry_json.code == 0, dry.err + dry_json.err
    said = "with your changes to the MCP server's env (a backup of the file would keep them)"
    assert f"would remove memidx from {mcp}\n  {said}\n" in dry.out
    notes = {f["path"]: f["notes"] for f in json.loads(dry_json.out)["files"]}
    assert notes[str(mcp)] == [said]
    assert not list(backup_folder(mcp).glob(".mcp.json.*"))  # none taken, none there

    done = run_in_process(project, "agent", "uninstall", "claude-code")

    assert done.code == 0, done.err
    kept = list(backup_folder(mcp).glob(".mcp.json.*"))
    assert len(kept) == 1 and "/srv/team" in kept[0].read_text()
    said = "with your changes to the MCP server's env (the backup keeps them)"
    assert f"(backup: {kept[0]})\n  {said}\n" in done.out


def test_a_timeout_the_person_set_on_gemini_mcp_server_stays_and_is_named(
    user_home: Path,
) -> None:
    """Installing again put memidx's `"timeout": 30000` back over the person's without a
    word, and uninstall did not name it among their changes."""
    project = project_in(user_home)
    assert run_in_process(project, "agent", "install", "gemini").code == 0
    settings = project / ".gemini" / "settings.json"
    doc = json.loads(settings.read_text())
    doc["mcpServers"]["memidx"]["timeout"] = 90_000
    settings.write_text(json.dumps(doc, indent=2))

    again = run_in_process(project, "agent", "install", "gemini")
    dry = run_in_process(project, "agent", "uninstall", "gemini", "--dry-run")

    assert again.code == 0 and dry.code == 0, again.err + dry.err
    assert f"unchanged: {settings}" in again.out
    assert json.loads(settings.read_text())["mcpServers"]["memidx"]["timeout"] == 90_000
    assert "  with your changes to the MCP server's timeout (a backup" in dry.out


def codex_args(toml: Path) -> list[str]:
    return tomllib.loads(toml.read_text())["mcp_servers"]["memidx"]["args"]


def args_lines(items: list[str], spread: bool) -> list[str]:
    """The block's args with `--own` and the person's comments, on one line or on several."""
    if not spread:
        return [f"args = {json.dumps([*items, '--own'])}  # the team's memory\n"]
    return [
        "args = [  # the team's memory\n",
        *(f"  {json.dumps(item)},\n" for item in items),
        "  # only my own notes:\n",
        '  "--own",\n',
        "]\n",
    ]


@pytest.mark.parametrize("spread", [False, True])
def test_flags_and_comments_the_person_put_in_memidx_codex_block_stay(
    user_home: Path, spread: bool
) -> None:
    """`--own` on the block's args line went at the next install (memidx wrote its args line
    anew), with a comment on that line; in an args array written over several lines, the
    array's other lines were kept as the person's: a file no TOML reader reads, refused."""
    project = project_in(user_home)
    toml = user_home / ".codex" / "config.toml"
    toml.parent.mkdir()
    toml.write_text('model = "o3"\n')
    assert run_in_process(project, "agent", "install", "codex", "--scope", "user").code == 0
    lines = toml.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("args = "))
    items = json.loads(lines[at].removeprefix("args = "))
    lines[at : at + 1] = args_lines(items, spread)
    toml.write_text("".join(lines))
    want = [*items, "--own"]
    assert codex_args(toml) == want

    again = run_in_process(project, "agent", "install", "codex", "--scope", "user")
    twice = toml.read_text()
    third = run_in_process(project, "agent", "install", "codex", "--scope", "user")
    dry = run_in_process(project, "agent", "uninstall", "codex", "--scope", "user", "--dry-run")

    assert again.code == 0 and third.code == 0 and dry.code == 0, again.err + dry.err
    assert codex_args(toml) == want and toml.read_text() == twice
    notes = ["# the team's memory", *["# only my own notes:"] * spread]
    assert "".join(f"{note}\n" for note in notes) + END in twice
    listed = ", ".join(f"`{note}`" for note in notes)
    said = f"the MCP server's args, lines {listed} (a backup of the file would keep them)"
    assert said in dry.out
    if shutil.which("codex"):  # the real Codex CLI reads the file as memidx does
        found = codex("mcp", "list", "--json")
        assert found.returncode == 0, found.stderr[-2000:]
        assert json.loads(found.stdout)[0]["transport"]["args"] == want


def test_a_command_of_the_persons_in_memidx_codex_block_is_left_alone(user_home: Path) -> None:
    """memidx wrote its own command and args over it at the next install, without a word."""
    project = project_in(user_home)
    toml = user_home / ".codex" / "config.toml"
    assert run_in_process(project, "agent", "install", "codex", "--scope", "user").code == 0
    lines = [
        'command = "my-memory-server"\n' if line.startswith("command = ") else line
        for line in toml.read_text().splitlines(keepends=True)
        if not line.startswith("args = ")
    ]
    toml.write_text("".join(lines))
    theirs = toml.read_text()

    done = run_in_process(project, "agent", "install", "codex", "--scope", "user")
    dry = run_in_process(project, "agent", "uninstall", "codex", "--scope", "user", "--dry-run")

    assert done.code == 1 and toml.read_text() == theirs
    assert done.err.startswith(f"memidx: error: {toml}: the command and args of memidx's")
    assert done.err.count("\n") == 1 and "Traceback" not in done.err
    assert "with your changes to the MCP server's command, args (a backup" in dry.out


def status_of(project: Path, path: Path) -> tuple[str, object]:
    """`memidx agent status`'s line for `path`, and its `hooks_off` in `--json`."""
    said = run_in_process(project, "agent", "status")
    listed = run_in_process(project, "agent", "status", "--json")
    assert said.code == 0 and listed.code == 0, said.err + listed.err
    line = next(line for line in said.out.splitlines() if f" {path}: " in line)
    found = next(f for f in json.loads(listed.out)["files"] if f["path"] == str(path))
    return line, found["hooks_off"]


def test_status_says_when_claude_code_has_switched_its_hooks_off(user_home: Path) -> None:
    """`disableAllHooks: true` stops every hook Claude Code 2.1.197 does not manage; status
    listed memidx's hooks as installed all the same. The project's own settings.local.json
    has the last word over the user's settings."""
    project = project_in(user_home)
    assert run_in_process(project, "agent", "install", "claude-code").code == 0
    settings = project / ".claude" / "settings.json"
    user = user_home / ".claude" / "settings.json"
    user.parent.mkdir()
    user.write_text('{"disableAllHooks": true}')

    line, off = status_of(project, settings)

    assert off == str(user)
    assert line.endswith(f"`make install` in your memory's clone); installed, but hooks are"
                         f" switched off in {user}")  # fmt: skip
    local = project / ".claude" / "settings.local.json"
    local.write_text(json.dumps({**json.loads(local.read_text()), "disableAllHooks": False}))
    assert status_of(project, settings)[1] is None
    assert status_of(project, project / ".mcp.json")[1] is None  # no hooks there


def test_status_says_when_gemini_cli_has_switched_its_hooks_off(
    user_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`hooksConfig.enabled: false` ("no hooks will be executed", Gemini CLI 0.61.0), in the
    user's settings, or in the system's that outrank the project's."""
    for variable in ("SETTINGS", "DEFAULTS"):  # none of this machine's /etc
        monkeypatch.setenv(f"GEMINI_CLI_SYSTEM_{variable}_PATH", str(user_home / variable))
    project = project_in(user_home)
    assert run_in_process(project, "agent", "install", "gemini").code == 0
    settings = project / ".gemini" / "settings.json"
    user = user_home / ".gemini" / "settings.json"
    user.parent.mkdir()
    user.write_text('{"hooksConfig": {"enabled": false}}')

    line, off = status_of(project, settings)

    assert off == str(user)
    hooks_item, *_ = line.split("; MCP server")
    assert hooks_item.endswith(f"; installed, but hooks are switched off in {user}")
    doc = json.loads(settings.read_text())
    settings.write_text(json.dumps({**doc, "hooksConfig": {"enabled": True}}))
    assert status_of(project, settings)[1] is None
    (user_home / "SETTINGS").write_text('{"hooksConfig": {"enabled": false}}')
    assert status_of(project, settings)[1] == str(user_home / "SETTINGS")


def test_status_says_when_codex_has_switched_its_hooks_off(user_home: Path) -> None:
    """`[features] hooks = false` in the user's config.toml (`codex features list` says
    `hooks ... false`), or in a trusted project's own .codex/config.toml."""
    project = project_in(user_home)
    assert run_in_process(project, "agent", "install", "codex").code == 0
    hooks = project / ".codex" / "hooks.json"
    user = user_home / ".codex" / "config.toml"
    user.parent.mkdir()
    user.write_text("[features]\nhooks = false\n")

    line, off = status_of(project, hooks)

    # the project is not trusted yet either, which Codex's precedence puts first: named too
    not_yet = " (the project is not trusted there yet, so Codex reads no .codex/ of it)"
    assert off == str(user) and line.endswith(f"switched off in {user}{not_yet}"), line
    if shutil.which("codex"):
        listed = codex("features", "list").stdout.splitlines()
        assert [row.split() for row in listed if row.startswith("hooks ")] == [
            ["hooks", "stable", "false"]
        ]
    toml = project / ".codex" / "config.toml"
    user.write_text("")
    toml.write_text(toml.read_text() + "\n[features]\nhooks = false\n")
    # Codex reads no .codex/ in a project not trusted: the user's config.toml says so
    assert status_of(project, hooks)[1] == str(user)
    user.write_text(f'[projects."{project.resolve()}"]\ntrust_level = "trusted"\n')
    assert status_of(project, hooks)[1] == str(toml)


def offline(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str] | None:
    """`argv` in a network namespace of its own (nothing it does leaves the machine), with
    this test's HOME; None where no such namespace can be made here."""
    if shutil.which(argv[0]) is None or shutil.which("unshare") is None:
        return None
    env = {"PATH": os.environ["PATH"], "HOME": str(Path.home())}
    env |= {name: value for name, value in os.environ.items() if name.startswith("GEMINI_CLI_")}
    if subprocess.run(["unshare", "-n", "true"], capture_output=True, check=False).returncode:
        return None
    return subprocess.run(["unshare", "-n", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, check=False)  # fmt: skip


def test_install_says_when_gemini_cli_does_not_trust_the_folder(
    user_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gemini CLI 0.61.0 trusts no folder until the person says so (folder trust is on by
    default), and in such a folder starts no MCP server (`gemini mcp list`: "Disabled") and
    runs no hooks: memidx's install looked done and did nothing there, unsaid."""
    for variable in ("SETTINGS", "DEFAULTS"):
        monkeypatch.setenv(f"GEMINI_CLI_SYSTEM_{variable}_PATH", str(user_home / variable))
    project = project_in(user_home)
    trust = user_home / ".gemini" / "trustedFolders.json"

    first = run_in_process(project, "agent", "install", "gemini")

    assert first.code == 0, first.err
    assert (
        "memidx: warning: Gemini CLI runs no hooks and starts no MCP server in a folder it does"
        f" not trust, and {project.resolve()} is not trusted in {trust}: memidx's hooks"
    ) in first.err
    listed = offline(["gemini", "mcp", "list"], project)
    said = "" if listed is None else listed.stdout + listed.stderr
    assert listed is None or ("memidx: /bin/sh" in said and " - Disabled" in said)
    assert status_of(project, project / ".gemini" / "settings.json")[1] is None  # it will ask

    trust.write_text(json.dumps({str(user_home): "TRUST_FOLDER"}))
    trusted = run_in_process(project, "agent", "install", "gemini")
    trust.write_text(json.dumps({str(user_home): "TRUST_FOLDER", str(project): "DO_NOT_TRUST"}))
    told = run_in_process(project, "agent", "install", "gemini")

    assert "Gemini CLI" not in trusted.err
    assert f"you told Gemini CLI not to trust {project.resolve()} ({trust})" in told.err
    assert status_of(project, project / ".gemini" / "settings.json")[1] == str(trust)
    settings = user_home / ".gemini" / "settings.json"
    settings.write_text('{"security": {"folderTrust": {"enabled": false}}}')
    assert "Gemini CLI" not in run_in_process(project, "agent", "install", "gemini").err


def test_status_names_memidx_hooks_gemini_cli_skips_by_name(
    user_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`/hooks disable memidx-BeforeAgent` puts the hook's name in `hooksConfig.disabled`
    (Gemini CLI 0.61.0 then never runs it, recall with it): status listed it as installed."""
    for variable in ("SETTINGS", "DEFAULTS"):
        monkeypatch.setenv(f"GEMINI_CLI_SYSTEM_{variable}_PATH", str(user_home / variable))
    project = project_in(user_home)
    assert run_in_process(project, "agent", "install", "gemini").code == 0
    settings = project / ".gemini" / "settings.json"
    user = user_home / ".gemini" / "settings.json"
    user.parent.mkdir()
    disabled = ["lint", "memidx-AfterAgent", "memidx-BeforeAgent"]
    user.write_text(json.dumps({"hooksConfig": {"disabled": disabled}}))
    (user_home / "SETTINGS").write_text('{"hooksConfig": {"disabled": ["memidx-PreCompress"]}}')

    said = run_in_process(project, "agent", "status")
    listed = run_in_process(project, "agent", "status", "--json")

    assert said.code == 0 and listed.code == 0, said.err + listed.err
    line = next(line for line in said.out.splitlines() if f" {settings}: " in line)
    assert (
        f"; installed, but memidx-BeforeAgent, memidx-AfterAgent are switched off in {user}"
        f"; installed, but memidx-PreCompress is switched off in {user_home / 'SETTINGS'}"
        "; MCP server memidx"
    ) in line
    found = next(f for f in json.loads(listed.out)["files"] if f["path"] == str(settings))
    assert found["hooks_off"] is None
    assert found["hooks_skipped"] == [
        {"hook": "memidx-BeforeAgent", "file": str(user)},
        {"hook": "memidx-AfterAgent", "file": str(user)},
        {"hook": "memidx-PreCompress", "file": str(user_home / "SETTINGS")},
    ]
