"""`memidx agent install|uninstall|status` where a review of the wt-agents2 merge broke it: the
person's lines in a Codex config.toml memidx made, TOML values over several lines in memidx's
block, Gemini CLI's trust and settings files with comments. In-process, on real files in a
throwaway HOME."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from memidx.agents.backups import backup_folder
from tests.helpers import run_in_process


def project_in(home: Path) -> Path:
    project = home / "project"
    (project / ".git").mkdir(parents=True)
    return project


def test_uninstall_backs_up_a_codex_config_memidx_made_that_holds_the_persons_lines(
    user_home: Path,
) -> None:
    """An `env` table the person added to memidx's block in a config.toml memidx had made:
    uninstall deleted the file without a backup, and said "(the backup keeps them)"."""
    project = project_in(user_home)
    assert run_in_process(project, "agent", "install", "codex", "--scope", "user").code == 0
    toml = user_home / ".codex" / "config.toml"
    text = toml.read_text()
    toml.write_text(text.replace('args = ["mcp"]\n', 'args = ["mcp"]\nenv = { KEY = "mine" }\n'))
    assert tomllib.loads(toml.read_text())["mcp_servers"]["memidx"]["env"] == {"KEY": "mine"}

    done = run_in_process(project, "agent", "uninstall", "codex", "--scope", "user")

    assert done.code == 0, done.err
    assert not toml.exists()
    kept = list(backup_folder(toml).glob("config.toml.*"))
    assert len(kept) == 1 and 'env = { KEY = "mine" }' in kept[0].read_text()
    assert f"removed memidx from {toml} (backup: {kept[0]})\n" in done.out
    assert "(the backup keeps them)" in done.out


def block_holding(toml: Path, lines: str, *, first: bool = False) -> str:
    """config.toml with `lines` of the person's in memidx's block, after its command and args
    (or `first`, right below its header)."""
    text = toml.read_text()
    header = "[mcp_servers.memidx]\n"
    at = text.index(header) + len(header) if first else text.index("\n# <<< memidx") + 1
    return text[:at] + lines + text[at:]


PERSONS_BLOCK_LINES = {
    # a line of a multi-line string that reads like memidx's own: it went, unsaid
    "string_with_args_line": ('note = """\nline [x]\nargs = 1\n"""\n', False),
    # a line of a value that starts with `[`: memidx's own lines below it were taken for the
    # person's, and install refused (`Cannot overwrite a value`)
    "string_with_bracket_line_first": ('note = """\n[x]\n"""\n', True),
    "array_of_arrays_first": ("pairs = [\n  [1, 2],\n]\n", True),
}


@pytest.mark.parametrize("name", PERSONS_BLOCK_LINES)
def test_the_persons_values_over_several_lines_in_memidx_codex_block_stay_whole(
    user_home: Path, name: str
) -> None:
    """Install read memidx's block line by line: a line inside the person's multi-line value
    was read as a line of its own."""
    project = project_in(user_home)
    assert run_in_process(project, "agent", "install", "codex", "--scope", "user").code == 0
    toml = user_home / ".codex" / "config.toml"
    lines, first = PERSONS_BLOCK_LINES[name]
    toml.write_text(block_holding(toml, lines, first=first))
    theirs = tomllib.loads(toml.read_text())

    again = run_in_process(project, "agent", "install", "codex", "--scope", "user")
    twice = toml.read_text()
    third = run_in_process(project, "agent", "install", "codex", "--scope", "user")

    assert again.code == 0 and third.code == 0, again.err + third.err
    assert tomllib.loads(twice) == theirs and toml.read_text() == twice
    assert lines in twice


@pytest.mark.parametrize(
    ("header", "key"),
    [("[ mcp_servers . memidx ]", "command"), ("[mcp_servers.memidx]", '"command"')],
)
def test_memidx_codex_block_written_as_toml_allows_is_memidx_own(
    user_home: Path, header: str, key: str
) -> None:
    """A header with spaces or a quoted key in memidx's block (both TOML, both read by Codex
    0.171.0) were taken for lines of the person's: install wrote its own again beside them, a
    table declared twice, and refused the file (`memidx cannot add ...`)."""
    project = project_in(user_home)
    assert run_in_process(project, "agent", "install", "codex", "--scope", "user").code == 0
    toml = user_home / ".codex" / "config.toml"
    text = toml.read_text().replace("[mcp_servers.memidx]", header).replace("command =", f"{key} =")
    toml.write_text(text)
    theirs = tomllib.loads(text)

    again = run_in_process(project, "agent", "install", "codex", "--scope", "user")

    assert again.code == 0, again.err
    assert tomllib.loads(toml.read_text()) == theirs


def gemini_home(user_home: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A project with memidx's Gemini CLI install, and the system's settings files moved
    into the test's HOME (none of this machine's /etc): the project and that folder."""
    for variable in ("SETTINGS", "DEFAULTS"):
        monkeypatch.setenv(f"GEMINI_CLI_SYSTEM_{variable}_PATH", str(user_home / variable))
    project = project_in(user_home)
    (user_home / ".gemini").mkdir()
    return project, user_home


def gemini_status(project: Path) -> dict[str, object]:
    listed = run_in_process(project, "agent", "status", "--json")
    assert listed.code == 0, listed.err
    settings = str(project / ".gemini" / "settings.json")
    return next(f for f in json.loads(listed.out)["files"] if f["path"] == settings)


def test_gemini_files_with_comments_are_read_as_gemini_cli_reads_them(
    user_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gemini CLI 0.61.0 reads trustedFolders.json and its settings past // comments
    (`gemini mcp list` then says the server is "Disabled"): memidx gave such a file up as
    unreadable, and said nothing of a folder the person had told Gemini not to trust, nor of
    hooks switched off there."""
    project, home = gemini_home(user_home, monkeypatch)
    trust = home / ".gemini" / "trustedFolders.json"
    trust.write_text(f'{{\n  // mine\n  "{project}": "DO_NOT_TRUST"\n}}\n')

    told = run_in_process(project, "agent", "install", "gemini")

    assert told.code == 0, told.err
    assert f"you told Gemini CLI not to trust {project.resolve()} ({trust})" in told.err
    assert gemini_status(project)["hooks_off"] == str(trust)
    trust.unlink()
    system = home / "SETTINGS"  # no file of memidx's (status names those it cannot edit)
    system.write_text(
        '{\n  // no hooks for now\n  "hooksConfig": {"enabled": false,'
        ' "disabled": ["memidx-AfterAgent"]}\n}\n'
    )
    found = gemini_status(project)
    assert found["hooks_off"] == str(system)
    assert found["hooks_skipped"] == [{"hook": "memidx-AfterAgent", "file": str(system)}]


def test_folder_trust_switched_off_in_gemini_system_defaults_is_no_untrusted_folder(
    user_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gemini CLI 0.61.0 takes `security.folderTrust.enabled` from the system's settings, the
    user's and the system's defaults: memidx read the first two only, and warned of a folder
    left untrusted where Gemini asks of none."""
    project, home = gemini_home(user_home, monkeypatch)
    (home / "DEFAULTS").write_text('{"security": {"folderTrust": {"enabled": false}}}')

    done = run_in_process(project, "agent", "install", "gemini")

    assert done.code == 0, done.err
    assert "trust" not in done.err


@pytest.mark.parametrize(
    ("rules", "trusted"),
    [
        ({"{project}/sub": "TRUST_PARENT", "{home}": "DO_NOT_TRUST"}, True),
        ({"{project}": "TRUST_PARENT"}, True),  # its parent: the home, which holds it
        ({"{home}": "TRUST_FOLDER", "{project}": "DO_NOT_TRUST"}, False),
        ({"{project}": "DO_NOT_TRUST", "{home}": "TRUST_FOLDER"}, False),  # the longest wins
        ({"{project}/sub": "TRUST_FOLDER"}, None),  # a folder inside it: not asked yet
    ],
)
def test_gemini_trust_rules_are_read_as_gemini_cli_reads_them(
    user_home: Path, monkeypatch: pytest.MonkeyPatch, rules: dict[str, str], trusted: bool | None
) -> None:
    """The rule with the longest path that holds the folder decides (a TRUST_PARENT rule's
    path holds its parent folder), as Gemini CLI 0.61.0's isPathTrusted reads them."""
    project, home = gemini_home(user_home, monkeypatch)
    trust = home / ".gemini" / "trustedFolders.json"
    trust.write_text(
        json.dumps({r.format(project=project, home=home): v for r, v in rules.items()})
    )

    done = run_in_process(project, "agent", "install", "gemini")

    assert done.code == 0, done.err
    assert ("you told Gemini CLI not to trust" in done.err) == (trusted is False)
    assert ("is not trusted in" in done.err) == (trusted is None)


def test_an_earlier_memidx_block_naming_an_emoji_as_surrogates_is_written_anew(
    user_home: Path,
) -> None:
    """An earlier memidx wrote an emoji in a clone's path as `\\ud83d\\ude00` (json.dumps),
    which TOML forbids: its command line reads as no TOML, and must still be memidx's to
    write again, not a line of the person's kept beside memidx's new one."""
    project = project_in(user_home)
    assert run_in_process(project, "agent", "install", "codex", "--scope", "user").code == 0
    toml = user_home / ".codex" / "config.toml"
    lines = toml.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("command = "))
    lines[at] = 'command = "/home/me/clone \\ud83d\\ude00/.venv/bin/memidx"\n'
    toml.write_text("".join(lines))

    again = run_in_process(project, "agent", "install", "codex", "--scope", "user")

    assert again.code == 0, again.err
    assert "\\ud83d" not in toml.read_text()
    assert tomllib.loads(toml.read_text())["mcp_servers"]["memidx"]["command"] != ""


def test_a_line_of_the_persons_in_memidx_codex_block_that_is_no_toml_is_named_so(
    user_home: Path,
) -> None:
    """Install kept the line and blamed the file's `mcp_servers` being one inline table."""
    project = project_in(user_home)
    assert run_in_process(project, "agent", "install", "codex", "--scope", "user").code == 0
    toml = user_home / ".codex" / "config.toml"
    toml.write_text(block_holding(toml, "startup_timeout_sec =\n"))
    theirs = toml.read_text()

    again = run_in_process(project, "agent", "install", "codex", "--scope", "user")

    assert again.code == 1 and toml.read_text() == theirs
    assert again.err.startswith(f"memidx: error: {toml}: not valid TOML: ")
    assert again.err.count("\n") == 1 and "inline table" not in again.err


def test_a_trust_rule_whose_path_holds_a_nul_is_no_traceback(
    user_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`{"/tmp/a\\u0000b": "TRUST_FOLDER"}` is JSON, which Gemini CLI reads (it holds no
    folder): install wrote its files, then ended in a traceback (ValueError: embedded null
    byte), exit 1."""
    project, home = gemini_home(user_home, monkeypatch)
    trust = home / ".gemini" / "trustedFolders.json"
    trust.write_text('{"/tmp/a\\u0000b": "TRUST_FOLDER"}')

    done = run_in_process(project, "agent", "install", "gemini")

    assert done.code == 0, done.err
    assert "Traceback" not in done.err and "is not trusted in" in done.err


def test_a_table_of_the_persons_above_memidx_own_in_its_codex_block_stays(
    user_home: Path,
) -> None:
    """A server of the person's put in memidx's block above memidx's table made every line
    below it the person's: install wrote its table again beside them, declared twice, and
    refused the file (`Cannot declare ('mcp_servers', 'memidx') twice`)."""
    project = project_in(user_home)
    assert run_in_process(project, "agent", "install", "codex", "--scope", "user").code == 0
    toml = user_home / ".codex" / "config.toml"
    mine = '[mcp_servers.mine]\ncommand = "my-server"\n'
    toml.write_text(
        toml.read_text().replace("[mcp_servers.memidx]\n", mine + "[mcp_servers.memidx]\n")
    )
    theirs = tomllib.loads(toml.read_text())

    again = run_in_process(project, "agent", "install", "codex", "--scope", "user")

    assert again.code == 0, again.err
    assert tomllib.loads(toml.read_text()) == theirs


def test_a_codex_config_memidx_made_saved_with_a_byte_order_mark_stays_memidx(
    user_home: Path,
) -> None:
    """An editor that saves UTF-8 with a byte-order mark put it before memidx's first marker
    line: install took the block for a table memidx did not add (exit 1), uninstall left it."""
    project = project_in(user_home)
    assert run_in_process(project, "agent", "install", "codex", "--scope", "user").code == 0
    toml = user_home / ".codex" / "config.toml"
    toml.write_text("\ufeff" + toml.read_text())
    marked = toml.read_text()

    again = run_in_process(project, "agent", "install", "codex", "--scope", "user")

    assert again.code == 0 and toml.read_text() == marked, again.err
    done = run_in_process(project, "agent", "uninstall", "codex", "--scope", "user")
    assert done.code == 0, done.err
    assert "mcp_servers" not in (toml.read_text() if toml.exists() else "")


def test_gemini_system_defaults_are_read_beside_the_system_settings_moved(
    user_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gemini CLI 0.61.0 reads its system defaults beside its system settings
    (`GEMINI_CLI_SYSTEM_SETTINGS_PATH` moves both unless GEMINI_CLI_SYSTEM_DEFAULTS_PATH is
    set): memidx read /etc/gemini-cli/system-defaults.json whatever the variable said."""
    monkeypatch.delenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH", raising=False)
    system = user_home / "system"
    system.mkdir()
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(system / "settings.json"))
    project = project_in(user_home)
    assert run_in_process(project, "agent", "install", "gemini").code == 0
    defaults = system / "system-defaults.json"
    defaults.write_text('{"hooksConfig": {"enabled": false}}')

    assert gemini_status(project)["hooks_off"] == str(defaults)


def test_status_says_memidx_codex_block_runs_the_persons_command(user_home: Path) -> None:
    """Install leaves a block whose command the person changed (exit 1), and status went on
    listing it as memidx's MCP server."""
    project = project_in(user_home)
    assert run_in_process(project, "agent", "install", "codex", "--scope", "user").code == 0
    toml = user_home / ".codex" / "config.toml"
    lines = toml.read_text().splitlines(keepends=True)
    toml.write_text(
        "".join('command = "my-server"\n' if x.startswith("command = ") else x for x in lines)
    )

    listed = run_in_process(project, "agent", "status", "--json")

    assert listed.code == 0, listed.err
    found = next(f for f in json.loads(listed.out)["files"] if f["path"] == str(toml))
    assert found["installed"] == ["MCP server memidx (in memidx's block, running yours)"]
