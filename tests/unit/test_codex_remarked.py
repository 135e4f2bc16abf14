"""Which `[mcp_servers.memidx]` table of a Codex `config.toml` that Codex's own writer rewrote
(memidx's begin marker dropped, its end marker left below another table) memidx takes back as
its block (memidx/agents/codex_install.py remarked()), and what its block then spans. Pure
edits on strings: each test costs milliseconds."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.agents.codex_install import config_files
from memidx.agents.text_install import BEGIN, END, TextFile
from memidx.errors import MemidxError


def config_toml() -> TextFile:
    found = config_files("user", Path("/nonexistent"))[1]
    assert isinstance(found, TextFile)
    return found


MEMIDX = "/home/me/memory/.venv/bin/memidx"
GITHUB = '[mcp_servers.github]\ncommand = "gh-mcp"\n'


@pytest.mark.parametrize(
    "theirs",
    [
        # `codex mcp add memidx -- /opt/team/.venv/bin/memidx mcp --own`, as Codex 0.171.0 writes
        '[mcp_servers.memidx]\ncommand = "/opt/team/.venv/bin/memidx"\nargs = ["mcp", "--own"]\n',
        f'[mcp_servers.memidx]\ncommand = "{MEMIDX}"\nargs = ["mcp", "--port", "8765"]\n',
    ],
)
def test_a_persons_own_memidx_server_with_flags_beside_a_stray_marker_stays_theirs(
    theirs: str,
) -> None:
    """A marker line is weak evidence: `codex mcp remove memidx` left memidx's end marker, and
    the person then added a server of their own that runs a memidx with flags memidx never
    writes. Install rewrote its command and dropped its flags without a word, and uninstall
    removed it without a word; it is theirs, as it is without the marker."""
    text = f'model = "o3"\n\n{GITHUB}\n{theirs}{END}'
    one = config_toml()

    with pytest.raises(MemidxError, match="that memidx did not add"):
        one.install(text)
    left = one.uninstall(text)

    assert left == f'model = "o3"\n\n{GITHUB}\n{theirs}'
    assert one.installed(text) == ["MCP server memidx (hand-written, not memidx's block)"]


def test_a_persons_comment_after_memidx_table_stays_outside_its_block() -> None:
    """Codex's rewrite dropped every comment; a comment the person then wrote above their next
    table was taken into memidx's block, and uninstall removed it (with the blank line)."""
    table = f'[mcp_servers.memidx]\ncommand = "{MEMIDX}"\nargs = ["mcp"]\n'
    text = f'model = "o3"\n\n{table}\n# the team\'s GitHub server\n{GITHUB}{END}\n'
    one = config_toml()

    installed = one.install(text)
    left = one.uninstall(text)

    assert installed.count(BEGIN) == installed.count(END) == 1
    assert installed.endswith(f"{END}\n\n# the team's GitHub server\n{GITHUB}")
    assert left == f'model = "o3"\n\n# the team\'s GitHub server\n{GITHUB}'
