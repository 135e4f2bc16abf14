"""memidx's marker lines indented (by a person, or an editor that indents comments): install,
uninstall and status read the same block, and no line of the person's changes. An indented
end marker ended the block where it was replaced but not where line endings were kept, so
the person's \\r\\n lines below it got memidx's \\n; an indented begin marker was no block at
all (Codex: "hand-written", install refused; Hermes: uninstall took it for the person's
`memory.provider: memidx` and left it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.agents import codex_install, hermes_install
from memidx.agents.text_install import BEGIN, END, TextFile, find_block

MCP = '[mcp_servers.memidx]\ncommand = "/clone/.venv/bin/memidx"\nargs = ["mcp"]\n'
BELOW = "[tui]\r\nnotifications = true\r\nanimations = false\r\n"  # the person's, in \r\n


def codex_config(tmp_path: Path) -> TextFile:
    toml = codex_install.config_files("project", tmp_path)[1]
    assert isinstance(toml, TextFile)
    return toml


@pytest.mark.parametrize("indent", ["  ", "\t", "    "])
def test_codex_indented_end_marker_leaves_the_persons_line_endings_below_it(
    tmp_path: Path, indent: str
) -> None:
    toml = codex_config(tmp_path)
    text = f'model = "o3"\n\n{BEGIN}\n{MCP}{indent}{END}\n{BELOW}'

    installed = toml.install(text)
    removed = toml.uninstall(text)

    assert installed.endswith(f"{END}\r\n{BELOW}")  # the block in the file's \r\n, once
    assert installed.count(BEGIN) == 1
    assert removed == f'model = "o3"\n{BELOW}'


@pytest.mark.parametrize("indent", ["  ", "\t"])
def test_codex_block_indented_whole_is_memidxs_block(tmp_path: Path, indent: str) -> None:
    toml = codex_config(tmp_path)
    memidx = tmp_path / "clone" / ".venv" / "bin" / "memidx"  # there: status names a gone one
    memidx.parent.mkdir(parents=True)
    memidx.touch()
    lines = MCP.replace("/clone/.venv/bin/memidx", memidx.as_posix()).splitlines()
    block = "".join(f"{indent}{line}\n" for line in [BEGIN, *lines, END])
    text = f'model = "o3"\n\n{block}'
    fresh = toml.install('model = "o3"\n')

    assert toml.installed(text) == toml.installed(fresh)  # was "hand-written"
    assert toml.install(text) == fresh  # was refused: "did not add"
    assert toml.uninstall(text) == 'model = "o3"\n'


def test_hermes_indented_markers_are_one_block(tmp_path: Path) -> None:
    config = hermes_install.config_files("user", tmp_path)[2]
    fresh = config.install("model: opus\n")
    assert find_block(fresh) is not None
    indented = fresh.replace(BEGIN, f"  {BEGIN}").replace(f"\n{END}", f"\n  {END}")

    assert config.install(indented) == fresh
    assert config.uninstall(indented) == "model: opus\n"  # the block was left, as the person's


def test_codex_rewrite_leaving_an_indented_end_marker_is_memidxs_table(tmp_path: Path) -> None:
    """Codex's writer drops memidx's begin marker and leaves its end marker below another
    table; indented, it was no marker: install refused ("did not add"), uninstall left it."""
    toml = codex_config(tmp_path)
    github = '[mcp_servers.github]\ncommand = "gh-mcp"\n'
    text = f'model = "o3"\n\n{MCP}\n{github}  {END}\n'

    installed = toml.install(text)
    removed = toml.uninstall(text)

    assert (installed.count(BEGIN), installed.count(END)) == (1, 1)
    assert github in installed
    assert removed.rstrip("\n") == f'model = "o3"\n\n{github}'.rstrip("\n")
