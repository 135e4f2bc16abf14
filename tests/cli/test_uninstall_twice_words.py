"""`memidx agent uninstall` run a second time, as a person unsure the first worked runs it."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import run_in_process


def test_a_second_uninstall_says_the_files_are_gone(user_home: Path) -> None:
    """It said `unchanged: <file>` of files the first uninstall had deleted, which read as if
    they were still there, holding memidx's hooks."""
    project = user_home / "project"
    (project / ".git").mkdir(parents=True)
    assert run_in_process(project, "agent", "install", "codex", "--scope", "user").code == 0
    assert run_in_process(project, "agent", "uninstall", "codex", "--scope", "user").code == 0

    again = run_in_process(project, "agent", "uninstall", "codex", "--scope", "user")

    hooks = user_home / ".codex" / "hooks.json"
    assert again.code == 0, again.err
    assert not hooks.exists()
    assert f"unchanged: {hooks} (no such file)\n" in again.out, again.out
