"""What install and status say of Gemini CLI's folder trust where trustedFolders.json is not
the whole story: an IDE Gemini CLI is connected to trusts the workspace for it (0.61.0; only
the live connection carries that, no file), and `GEMINI_CLI_TRUST_WORKSPACE=true` (documented)
trusts it for the session. Install said the hooks did nothing there, and they ran."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_agent_install_edges import offline
from tests.cli.test_agent_install_review import gemini_home, gemini_status
from tests.helpers import run_in_process

IDE = "unless your IDE trusts the workspace"


@pytest.mark.parametrize("rule", [None, "DO_NOT_TRUST"])
def test_gemini_trust_warning_leaves_room_for_an_ide_that_trusts_the_workspace(
    user_home: Path, monkeypatch: pytest.MonkeyPatch, rule: str | None
) -> None:
    monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE", raising=False)
    project, home = gemini_home(user_home, monkeypatch)
    trust = home / ".gemini" / "trustedFolders.json"
    if rule:
        trust.write_text(json.dumps({str(project.resolve()): rule}))

    done = run_in_process(project, "agent", "install", "gemini")

    assert done.code == 0, done.err
    warning = next(line for line in done.err.splitlines() if "trust" in line)
    assert IDE in warning
    assert "not trusted yet" not in warning  # it may be trusted, by the IDE
    if rule is None:
        assert f"{project.resolve()} is not trusted in {trust}: memidx's hooks" in warning
        assert "or GEMINI_CLI_TRUST_WORKSPACE=true is set where it runs" in warning


def test_gemini_trust_workspace_variable_is_trust(
    user_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, home = gemini_home(user_home, monkeypatch)
    trust = home / ".gemini" / "trustedFolders.json"
    trust.write_text(json.dumps({str(project.resolve()): "DO_NOT_TRUST"}))
    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")

    done = run_in_process(project, "agent", "install", "gemini")

    assert done.code == 0, done.err
    assert "trust" not in done.err  # it warned, and Gemini CLI started memidx's server
    assert gemini_status(project)["hooks_off"] is None
    listed = offline(["gemini", "mcp", "list"], project)
    said = "" if listed is None else listed.stdout + listed.stderr
    assert listed is None or ("memidx: /bin/sh" in said and "untrusted" not in said)
    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "false")
    assert gemini_status(project)["hooks_off"] == str(trust)


def test_gemini_status_of_a_distrusted_folder_leaves_room_for_an_ide(
    user_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Status said the hooks were switched off where an IDE's trust may switch them on."""
    monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE", raising=False)
    project, home = gemini_home(user_home, monkeypatch)
    trust = home / ".gemini" / "trustedFolders.json"
    trust.write_text(json.dumps({str(project.resolve()): "DO_NOT_TRUST"}))
    assert run_in_process(project, "agent", "install", "gemini").code == 0

    said = run_in_process(project, "agent", "status").out

    assert (
        f"installed, but hooks are switched off in {trust} (you told Gemini CLI not to trust"
        " the folder, unless an IDE it is connected to trusts it)"
    ) in said
    assert gemini_status(project)["hooks_off"] == str(trust)


@pytest.mark.parametrize(
    "variables",
    [
        {"GEMINI_RESTRICTED_MODE": "true"},
        {"GEMINI_CLI_TRUST_WORKSPACE": "false"},
        {"GEMINI_RESTRICTED_MODE": "true", "GEMINI_CLI_TRUST_WORKSPACE": "true"},
    ],
)
def test_gemini_distrusting_variables_are_said_at_install(
    user_home: Path, monkeypatch: pytest.MonkeyPatch, variables: dict[str, str]
) -> None:
    """`GEMINI_RESTRICTED_MODE=true` or `GEMINI_CLI_TRUST_WORKSPACE=false`: Gemini CLI 0.61.0
    trusts no folder, one trusted in trustedFolders.json neither (`gemini mcp list` said
    "Disabled"), and the first outranks `GEMINI_CLI_TRUST_WORKSPACE=true`: install said
    nothing of it, and status called the hooks on."""
    project, home = gemini_home(user_home, monkeypatch)
    trust = home / ".gemini" / "trustedFolders.json"
    trust.write_text(json.dumps({str(project.resolve()): "TRUST_FOLDER"}))
    monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE", raising=False)
    monkeypatch.delenv("GEMINI_RESTRICTED_MODE", raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)

    done = run_in_process(project, "agent", "install", "gemini")

    assert done.code == 0, done.err
    said = next(iter(variables.items()))
    assert f"Gemini CLI trusts no folder where {said[0]}={said[1]} is set" in done.err, done.err
    assert gemini_status(project)["hooks_off"] == str(trust)  # status called them on
    said_by = run_in_process(project, "agent", "status").out
    assert f"(Gemini CLI trusts no folder where {said[0]}={said[1]} is set, " in said_by, said_by
    settings = [f"{name}={value}" for name, value in variables.items()]
    listed = offline(["env", *settings, "gemini", "mcp", "list"], project)
    assert listed is None or "Disabled" in listed.stdout + listed.stderr, listed
