"""memidx's Codex block read a key at a time (memidx/agents/codex_block.py) in time linear in
its lines, whatever the lines hide: keys and brackets inside a multi-line string (read as the
string's text, once), a string never closed, and lines breaking inside an inline table, which
TOML 1.0 forbids (`a = [{` on each line: each was read to the block's end, 1,000 lines 0.7 s,
4,000 about 11 s, at every install, uninstall and status)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memidx.agents.codex_block import added_to_block
from memidx.agents.text_install import BEGIN, END
from tests.cpu_cost import least_ratio

HEAD = '[mcp_servers.memidx]\ncommand = "/clone/.venv/bin/memidx"\nargs = ["mcp"]\n'
SHAPES: dict[str, Callable[[int], str]] = {
    "keys in a basic string": lambda n: 'x = """\n' + "k = [\n" * n + '"""\n',
    "keys in a literal string": lambda n: "x = '''\n" + 'k = """ [\n' * n + "'''\n",
    "keys in a string that is no TOML": lambda n: 'x = """\\q\n' + "k = [ 1,\n" * n + '"""\n',
    "keys in a string never closed": lambda n: "x = '''\n" + "k = [\n" * n,
    "strings opened in arrays": lambda n: 'k = [ """\n' * n,
    "lines breaking in an inline table": lambda n: "a = [{\n" * n,
    "keys in an inline table in an array": lambda n: "a = [{b = 1,\n" * n,
}


def _reader(lines: str) -> Callable[[], object]:
    """Reading memidx's block holding `lines`."""
    text = f"{BEGIN}\n{HEAD}{lines}{END}\n"
    assert added_to_block(text) == lines
    return lambda: added_to_block(text)


@pytest.mark.parametrize("shape", SHAPES)
def test_memidx_block_is_read_in_linear_time(shape: str) -> None:
    """Linear takes about 16x the time for 16x the lines; quadratic, 256x."""
    make = SHAPES[shape]
    least, ratios = least_ratio(_reader(make(4_000)), _reader(make(250)), below=64, runs=5)
    assert least < 64, f"16x the lines took {ratios}x the time"
