"""What `memidx agent install|uninstall` leaves behind: no backup inside the project (a team
commits a project install, and `git add -A` would take the backups along), no read-only file
replaced, no empty folder it made."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import memidx_agent, run_in_process

THEIRS = '{\n    "model": "opus",\n    "hooks": {}\n}\n'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository holding the person's own Claude Code settings."""
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".claude" / "settings.json").write_text(THEIRS)
    (root / ".mcp.json").write_text('{"mcpServers": {}}')
    return root


def untracked(project: Path) -> list[str]:
    done = subprocess.run(
        ["git", "-C", str(project), "status", "--porcelain", "--untracked-files=all"],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return sorted(line[3:] for line in done.stdout.splitlines())


def contents(project: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in project.rglob("*") if p.is_file() and ".git" not in p.parts}


def state_backups(folder: Path) -> Path:
    """Where the backups of the files in `folder` go, as the README says."""
    state = Path(os.environ["XDG_STATE_HOME"]) / "memidx" / "agent-backups"
    return state / folder.resolve().relative_to("/")


def test_a_project_install_leaves_no_backup_in_the_project(project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    first = memidx_agent(project, "install", "claude-code")
    settings.write_text(settings.read_text().replace('"opus"', '"sonnet"'))
    memidx_agent(project, "uninstall", "claude-code")
    memidx_agent(project, "install", "claude-code")

    files = [".claude/settings.json", ".claude/settings.local.json", ".mcp.json"]
    assert untracked(project) == files
    kept = sorted(state_backups(settings.parent).glob("settings.json.memidx-backup-*"))
    assert len(kept) == 3 and kept[0].read_text() == THEIRS
    assert f"installed into {settings} (backup: {kept[0]})" in first


def test_uninstall_gives_back_the_text_from_a_backup_an_older_memidx_left_beside_the_file(
    project: Path,
) -> None:
    settings = project / ".claude" / "settings.json"
    memidx_agent(project, "install", "claude-code")
    for one in state_backups(settings.parent).iterdir():
        one.unlink()
    old = settings.with_name("settings.json.memidx-backup-20250101T000000000000Z")
    old.write_text(THEIRS)  # as memidx kept its backups before

    memidx_agent(project, "uninstall", "claude-code")

    assert settings.read_text() == THEIRS  # byte for byte, not reformatted


@pytest.mark.parametrize("action", ["install", "uninstall"])
@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_a_read_only_file_is_refused_before_any_file_is_written(
    project: Path, agent: str, action: str
) -> None:
    if action == "uninstall":
        memidx_agent(project, "install", agent)
    file = project / (".claude/settings.json" if agent == "claude-code" else ".codex/config.toml")
    file.parent.mkdir(exist_ok=True)
    if not file.exists():
        file.write_text('model = "o4"\n')
    file.chmod(0o444)
    before = contents(project)
    backups_before = sorted(Path(os.environ["XDG_STATE_HOME"]).rglob("*"))

    done = run_in_process(project, "agent", action, agent)

    assert done.code == 1
    assert done.err.count("\n") == 1 and f"memidx: error: {file}: read-only" in done.err
    assert "chmod u+w" in done.err and "Traceback" not in done.err
    assert file.stat().st_mode & 0o777 == 0o444
    assert contents(project) == before
    assert sorted(Path(os.environ["XDG_STATE_HOME"]).rglob("*")) == backups_before


def test_a_state_folder_memidx_cannot_write_stops_the_install_before_any_file_is_written(
    project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))
    (project / ".claude" / "settings.json").unlink()  # the first file written needs no backup

    done = run_in_process(project, "agent", "install", "claude-code")

    assert done.code == 1 and f"cannot keep the backup of {project / '.mcp.json'}" in done.err
    assert "XDG_STATE_HOME" in done.err and "Traceback" not in done.err
    assert not (project / ".claude" / "settings.json").exists()
    assert not (project / ".claude" / "settings.local.json").exists()


def test_cursor_uninstall_removes_the_folders_memidx_made(project: Path) -> None:
    memidx_agent(project, "install", "cursor")
    assert (project / ".cursor" / "rules" / "memidx.mdc").exists()

    memidx_agent(project, "uninstall", "cursor")

    assert not (project / ".cursor").exists()


def test_cursor_uninstall_keeps_a_folder_that_was_there(project: Path) -> None:
    rules = project / ".cursor" / "rules"
    rules.mkdir(parents=True)  # the person's, empty
    memidx_agent(project, "install", "cursor")

    memidx_agent(project, "uninstall", "cursor")

    assert rules.is_dir() and not any(rules.iterdir())


def test_cursor_uninstall_keeps_a_folder_memidx_made_that_holds_something(project: Path) -> None:
    memidx_agent(project, "install", "cursor")
    (project / ".cursor" / "rules" / "mine.mdc").write_text("mine\n")

    memidx_agent(project, "uninstall", "cursor")

    assert sorted(p.name for p in (project / ".cursor").rglob("*")) == ["mine.mdc", "rules"]
