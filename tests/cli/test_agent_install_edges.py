"""`memidx agent install|uninstall|status` at the edges of what people do to memidx's entries:
a dry run of an uninstall that would remove a change of theirs, flags and lines they added to
memidx's Codex block, hooks the agent itself has switched off. In-process, on real files in a
throwaway HOME: each test costs well under a second."""

from __future__ import annotations

import json
from pathlib import Path

from memidx.agents.backups import backup_folder
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
