"""`memidx agent install|uninstall` of Codex CLI where a review of the wt-ragents2 merge broke
it: memidx's end marker inside a line of the person's, the person's lines above memidx's table
header in its block, a value nested too deeply for tomllib, a config.toml memidx made that an
editor saved with a byte-order mark; a project install Codex ignores, in a project it does
not trust. In-process, on real files in a throwaway HOME."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from memidx.agents.backups import backup_folder
from memidx.agents.text_install import BEGIN
from tests.cli.test_agent_install_edges import offline
from tests.cli.test_agent_install_review import gemini_home, gemini_status
from tests.helpers import run_in_process


def installed_codex(home: Path) -> tuple[Path, Path]:
    """A project and the user's config.toml holding memidx's block, as install writes it."""
    project = home / "project"
    (project / ".git").mkdir(parents=True)
    assert run_in_process(project, "agent", "install", "codex", "--scope", "user").code == 0
    return project, home / ".codex" / "config.toml"


def test_uninstall_removes_a_codex_config_memidx_made_that_an_editor_saved_with_a_bom(
    user_home: Path,
) -> None:
    """Notepad saves UTF-8 with a byte-order mark first: uninstall took out memidx's block
    and left a 3-byte file holding the mark (memidx made the file: it goes)."""
    project, toml = installed_codex(user_home)
    toml.write_text("\ufeff" + toml.read_text())

    done = run_in_process(project, "agent", "uninstall", "codex", "--scope", "user")

    assert done.code == 0, done.err
    assert not toml.exists()


def test_memidx_end_marker_inside_a_line_of_the_persons_does_not_end_the_block(
    user_home: Path,
) -> None:
    """A comment of the person's in memidx's block that quotes its end marker (`# <<< memidx
    took 20 s once`) ended the block mid-line: install and uninstall both called the file
    `not valid TOML` and refused it."""
    project, toml = installed_codex(user_home)
    line = "startup_timeout_sec = 30 # <<< memidx took 20 s once\n"
    toml.write_text(toml.read_text().replace('args = ["mcp"]\n', f'args = ["mcp"]\n{line}'))
    theirs = tomllib.loads(toml.read_text())

    again = run_in_process(project, "agent", "install", "codex", "--scope", "user")

    assert again.code == 0, again.err
    assert tomllib.loads(toml.read_text()) == theirs and line in toml.read_text()
    done = run_in_process(project, "agent", "uninstall", "codex", "--scope", "user")
    assert done.code == 0, done.err
    assert not toml.exists()
    kept = list(backup_folder(toml).glob("config.toml.*"))
    assert len(kept) == 1 and line in kept[0].read_text()


def test_the_persons_lines_above_memidx_header_in_its_block_stay_above_it(
    user_home: Path,
) -> None:
    """A line of the person's between memidx's begin marker and its table header is, to TOML,
    a key of the table before (here the top of the file: Codex's model): install moved it
    below memidx's header, into memidx's server's table, and Codex's model setting was gone."""
    project, toml = installed_codex(user_home)
    toml.write_text(toml.read_text().replace(f"{BEGIN}\n", f'{BEGIN}\nmodel = "o3"\n'))
    theirs = tomllib.loads(toml.read_text())
    assert theirs["model"] == "o3"

    again = run_in_process(project, "agent", "install", "codex", "--scope", "user")

    assert again.code == 0, again.err
    assert tomllib.loads(toml.read_text()) == theirs


def test_a_value_nested_too_deeply_in_memidx_block_is_named_not_a_traceback(
    user_home: Path,
) -> None:
    """An array nested 1,200 deep among the person's lines in memidx's block: install and
    uninstall ended in a RecursionError traceback."""
    project, toml = installed_codex(user_home)
    deep = "x = " + "[" * 1200 + "]" * 1200 + "\n"
    toml.write_text(toml.read_text().replace('args = ["mcp"]\n', f'args = ["mcp"]\n{deep}'))
    written = toml.read_text()

    again = run_in_process(project, "agent", "install", "codex", "--scope", "user")

    assert again.code == 1 and "Traceback" not in again.err
    assert f"{toml}: nested too deeply for memidx to read" in again.err
    assert toml.read_text() == written
    done = run_in_process(project, "agent", "uninstall", "codex", "--scope", "user")
    assert done.code == 0, done.err
    kept = list(backup_folder(toml).glob("config.toml.*"))
    assert len(kept) == 1 and deep in kept[0].read_text()


def codex_status(project: Path) -> dict[str, dict[str, object]]:
    listed = run_in_process(project, "agent", "status", "--json")
    assert listed.code == 0, listed.err
    return {str(f["path"]): f for f in json.loads(listed.out)["files"] if f["agent"] == "codex"}


def codex_servers(project: Path) -> list[str] | None:
    """The servers `codex mcp list --json` lists in `project` (None without codex here)."""
    listed = offline(["codex", "mcp", "list", "--json"], project)
    if listed is None:
        return None
    assert listed.returncode == 0, listed.stderr
    return [server["name"] for server in json.loads(listed.stdout)]


def test_codex_project_install_in_a_project_codex_does_not_trust_is_said_to_do_nothing(
    user_home: Path,
) -> None:
    """Codex 0.171.0 reads no .codex/ in a project the user's config.toml does not trust (it
    runs none of its hooks, `codex mcp list` leaves its servers out): install said nothing
    and status listed the project's hooks and MCP server as installed."""
    project = user_home / "project"
    (project / ".git").mkdir(parents=True)
    user = user_home / ".codex" / "config.toml"

    done = run_in_process(project, "agent", "install", "codex")

    assert done.code == 0, done.err
    assert f"{project} is not trusted yet ({user})" in done.err
    found = codex_status(project)
    hooks, toml = project / ".codex" / "hooks.json", project / ".codex" / "config.toml"
    assert found[str(hooks)]["hooks_off"] == str(user)
    assert found[str(toml)]["installed"] == [
        f"MCP server memidx (not started: Codex reads no .codex/ in a project {user} does not"
        " trust)"
    ]
    assert codex_servers(project) in (None, [])
    assert run_in_process(project, "agent", "install", "codex", "--scope", "user").code == 0
    assert codex_status(project)[str(user_home / ".codex" / "hooks.json")]["hooks_off"] is None
    user.write_text(
        f'[projects."{project.resolve()}"]\ntrust_level = "trusted"\n' + user.read_text()
    )

    trusted = codex_status(project)

    assert trusted[str(hooks)]["hooks_off"] is None
    assert trusted[str(toml)]["installed"] == ["MCP server memidx"]
    assert codex_servers(project) in (None, ["memidx"])
    again = run_in_process(project, "agent", "install", "codex")
    assert again.code == 0 and "not trusted" not in again.err


def test_a_repository_at_home_keeps_codex_user_hooks_on(user_home: Path) -> None:
    """A dotfiles repository at HOME: its .codex/ is the user's, which Codex reads whatever
    the trust, so its hooks are not said to be off."""
    (user_home / ".git").mkdir()
    assert run_in_process(user_home, "agent", "install", "codex", "--scope", "user").code == 0

    found = codex_status(user_home)

    assert found[str(user_home / ".codex" / "hooks.json")]["hooks_off"] is None
    assert found[str(user_home / ".codex" / "config.toml")]["installed"] == ["MCP server memidx"]


def test_gemini_folder_trust_off_in_system_defaults_leaves_the_hooks_on_in_status(
    user_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Folder trust switched off in Gemini CLI's system defaults: a DO_NOT_TRUST answer then
    counts for nothing, and install warns of none; status (which read only the system's and
    the user's settings for it) still called the hooks switched off by trustedFolders.json.
    Install's side is tests/cli/test_agent_install_review.py's."""
    project, home = gemini_home(user_home, monkeypatch)
    trust = home / ".gemini" / "trustedFolders.json"
    trust.write_text(json.dumps({str(project): "DO_NOT_TRUST"}))
    assert run_in_process(project, "agent", "install", "gemini").code == 0
    assert gemini_status(project)["hooks_off"] == str(trust)

    (home / "DEFAULTS").write_text('{"security": {"folderTrust": {"enabled": false}}}')

    assert gemini_status(project)["hooks_off"] is None


def test_a_codex_user_install_warns_of_no_untrusted_project_whose_codex_folder_is_yours(
    user_home: Path,
) -> None:
    """A user install in a project Codex does not trust, whose .codex/ holds only the
    person's own files: nothing of memidx's is ignored there, so nothing to warn of."""
    project = user_home / "project"
    (project / ".codex").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / ".codex" / "config.toml").write_text('model = "o3"\n')

    done = run_in_process(project, "agent", "install", "codex", "--scope", "user")

    assert done.code == 0, done.err
    assert "not trusted" not in done.err
