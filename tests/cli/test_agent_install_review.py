"""`memidx agent install|uninstall|status` where a review of the wt-agents2 merge broke it: the
person's lines in a Codex config.toml memidx made, TOML values over several lines in memidx's
block, Gemini CLI's trust and settings files with comments. In-process, on real files in a
throwaway HOME."""

from __future__ import annotations

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
