"""Hooks the person's own settings switch off (Claude Code's `"disableAllHooks": true`):
`agent status` said `installed, but hooks are switched off in <file>`, and install said
nothing, so the person believed memidx's hooks would run. Install says so in one line, with
the setting to change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_in_process

CASES = [  # the agent, its user settings file, the setting that switches hooks off, the line
    ("claude-code", ".claude/settings.json", '{"disableAllHooks": true}\n',
     "Claude Code", "`disableAllHooks` is true there: set it to false or remove it"),
    ("gemini", ".gemini/settings.json", '{"hooksConfig": {"enabled": false}}\n',
     "Gemini CLI", "`hooksConfig.enabled` is false there: set it to true or remove it"),
    ("codex", ".codex/config.toml", "[features]\ncodex_hooks = false\n", "Codex CLI",
     "`features.hooks` (or `features.codex_hooks`) is false there: set it to true or remove it"),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_install_says_the_persons_own_settings_switch_the_hooks_off(
    user_home: Path, case: tuple[str, str, str, str, str]
) -> None:
    agent, name, text, title, remedy = case
    settings = user_home / name
    settings.parent.mkdir(parents=True)
    settings.write_text(text)

    done = run_in_process(user_home, "agent", "install", agent, "--scope", "user")
    said = run_in_process(user_home, "agent", "status", agent)

    hooks = settings if agent != "codex" else settings.with_name("hooks.json")
    line = (
        f"memidx: warning: {title} runs none of memidx's hooks in {hooks}: {settings}"
        f" switches its hooks off ({remedy})\n"
    )
    assert done.code == 0 and line in done.err, done.err
    assert done.err.count(str(settings) + " switches") == 1
    assert f"installed, but hooks are switched off in {settings}" in said.out


def test_install_says_nothing_of_hooks_a_later_setting_switches_back_on(user_home: Path) -> None:
    project = user_home / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".git").mkdir()
    (user_home / ".claude").mkdir()
    (user_home / ".claude" / "settings.json").write_text('{"disableAllHooks": true}\n')
    (project / ".claude" / "settings.local.json").write_text('{"disableAllHooks": false}\n')

    done = run_in_process(project, "agent", "install", "claude-code")

    assert done.code == 0, done.err
    assert "runs none of memidx's hooks" not in done.err


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_a_dry_run_warns_as_the_install_would(
    user_home: Path, case: tuple[str, str, str, str, str]
) -> None:
    """A dry run read the files as they were, without memidx's hooks, and warned of nothing:
    the person was told only once the install had been made."""
    agent, name, text, title, remedy = case
    settings = user_home / name
    settings.parent.mkdir(parents=True)
    settings.write_text(text)
    before = sorted(p.relative_to(user_home) for p in user_home.rglob("*"))

    done = run_in_process(user_home, "agent", "install", agent, "--scope", "user", "--dry-run")

    hooks = settings if agent != "codex" else settings.with_name("hooks.json")
    line = (
        f"memidx: warning: {title} runs none of memidx's hooks in {hooks}: {settings}"
        f" switches its hooks off ({remedy})\n"
    )
    assert done.code == 0 and line in done.err, done.err
    assert settings.read_text() == text
    assert sorted(p.relative_to(user_home) for p in user_home.rglob("*")) == before


@pytest.mark.parametrize("dry_run", [False, True])
def test_install_says_which_hooks_gemini_cli_skips_by_name(
    user_home: Path, monkeypatch: pytest.MonkeyPatch, dry_run: bool
) -> None:
    """`/hooks disable memidx-BeforeAgent` puts the hook's name in Gemini CLI's
    `hooksConfig.disabled`, and it never runs: status said so, install said nothing."""
    for variable in ("SETTINGS", "DEFAULTS"):
        monkeypatch.setenv(f"GEMINI_CLI_SYSTEM_{variable}_PATH", str(user_home / variable))
    user = user_home / ".gemini" / "settings.json"
    user.parent.mkdir()
    disabled = ["lint", "memidx-AfterAgent", "memidx-BeforeAgent"]
    user.write_text(json.dumps({"hooksConfig": {"disabled": disabled}}))
    dry = ("--dry-run",) if dry_run else ()

    done = run_in_process(user_home, "agent", "install", "gemini", "--scope", "user", *dry)

    assert done.code == 0, done.err
    assert (
        f"memidx: warning: Gemini CLI skips memidx-BeforeAgent, memidx-AfterAgent in {user}:"
        f" {user} lists them in `hooksConfig.disabled` (take them out of that list there)\n"
    ) in done.err
    assert "lint" not in done.err


def test_a_user_install_says_the_projects_switch_holds_in_that_project(user_home: Path) -> None:
    """A user install from a project whose own settings switch hooks off: the warning said
    memidx's hooks in the user's file ran nowhere; they run in every other project."""
    project = user_home / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".git").mkdir()
    local = project / ".claude" / "settings.local.json"
    local.write_text('{"disableAllHooks": true}\n')

    done = run_in_process(project, "agent", "install", "claude-code", "--scope", "user")

    hooks = user_home / ".claude" / "settings.json"
    assert done.code == 0, done.err
    assert (
        f"memidx: warning: Claude Code runs none of memidx's hooks in {hooks} when it runs in"
        f" {project.resolve()}: {local} switches its hooks off ("
    ) in done.err


def test_gemini_system_settings_are_an_administrators(
    user_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gemini CLI's system settings (/etc/gemini-cli/settings.json) outrank the person's own:
    install told them to set `hooksConfig.enabled` there to true or remove it, which only an
    administrator can, and the same of the system's defaults, which their own settings
    outrank. The first is worded as a policy (as Claude Code's), the second names their file."""
    system = user_home / "system"
    system.mkdir()
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(system / "settings.json"))
    monkeypatch.delenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH", raising=False)
    off = '{"hooksConfig": {"enabled": false}}\n'
    (system / "settings.json").write_text(off)

    done = run_in_process(user_home, "agent", "install", "gemini", "--scope", "user")
    said = run_in_process(user_home, "agent", "status", "gemini")

    assert done.code == 0 and "or remove it" not in done.err, done.err
    assert (
        "memidx: warning: Gemini CLI runs none of memidx's hooks on this machine: its system"
        f" settings, {system / 'settings.json'}, switch them off (`hooksConfig.enabled` is false"
        " there, which outranks every other settings file); they do nothing until an"
        " administrator changes that (memidx never writes it)\n"
    ) in done.err
    assert "(the system's settings, which outrank every other: `hooksConfig" in said.out

    (system / "settings.json").unlink()
    (system / "system-defaults.json").write_text(off)
    again = run_in_process(user_home, "agent", "install", "gemini", "--scope", "user")

    user = user_home / ".gemini" / "settings.json"
    assert (
        again.code == 0
        and (
            f"{system / 'system-defaults.json'} switches its hooks off (`hooksConfig.enabled` is"
            f" false there: set it to true in {user}, which outranks that file)\n"
        )
        in again.err
    ), again.err
