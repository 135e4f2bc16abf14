"""A Codex project install in a project the user's config.toml does not trust yet: status
says why that file switches the project's hooks off."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import run_in_process


def test_status_says_the_project_is_not_trusted_yet(user_home: Path) -> None:
    """Status said `installed, but hooks are switched off in ~/.codex/config.toml`, a file
    that holds no word of hooks (a new user looked there for `hooks = false`): it adds that the
    project is not trusted there yet, as it adds that one is marked untrusted."""
    project = user_home / "project"
    (project / ".git").mkdir(parents=True)
    user = user_home / ".codex" / "config.toml"

    assert run_in_process(project, "agent", "install", "codex").code == 0
    said = run_in_process(project, "agent", "status")

    hooks = project / ".codex" / "hooks.json"
    line = next(one for one in said.out.splitlines() if str(hooks) in one)
    assert line.endswith(
        f"installed, but hooks are switched off in {user} (the project is not trusted there"
        " yet, so Codex reads no .codex/ of it)"
    ), line
