"""A project the person marked `trust_level = "untrusted"` in Codex's config.toml: install
said it was "not trusted yet" and to trust it when Codex asks or with `codex exec --trust`,
which Codex 0.171.0 does not do for such a project ("Does not override an explicitly
untrusted project", its help): it says the project is marked so, and how to change that."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_agent_install_review3 import codex_servers, codex_status
from tests.helpers import run_in_process


def test_codex_install_and_status_say_a_project_is_marked_untrusted(user_home: Path) -> None:
    project = user_home / "project"
    (project / ".git").mkdir(parents=True)
    user = user_home / ".codex" / "config.toml"
    user.parent.mkdir()
    root = project.resolve()
    user.write_text(f'[projects."{root}"]\ntrust_level = "untrusted"\n')

    done = run_in_process(project, "agent", "install", "codex")
    said = run_in_process(project, "agent", "status")
    found = codex_status(project)

    assert done.code == 0, done.err
    assert "not trusted yet" not in done.err and "when it asks" not in done.err
    assert (
        f'{user} marks {root} so (trust_level = "untrusted"): memidx\'s hooks and MCP server'
        " there do nothing, and `codex exec --trust` does not change that: if you trust the"
        f' folder, set trust_level = "trusted" under [projects."{root}"] there' in done.err
    )
    hooks, toml = project / ".codex" / "hooks.json", project / ".codex" / "config.toml"
    assert found[str(hooks)]["hooks_off"] == str(user)
    assert f'switched off in {user} (the project is marked trust_level = "untrusted" there)' in (
        said.out
    )
    assert found[str(toml)]["installed"] == [
        f"MCP server memidx (not started: {user} marks the project untrusted, so Codex reads"
        " no .codex/)"
    ]
    assert codex_servers(project) in (None, [])  # the real Codex starts none of them
