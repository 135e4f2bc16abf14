"""memidx's Codex block read a key at a time (memidx/agents/codex_block.py), pure: what it
costs on a block that is no TOML."""

from __future__ import annotations

import time

from memidx.agents.codex_block import added_to_block
from memidx.agents.text_install import BEGIN, END

HEAD = '[mcp_servers.memidx]\ncommand = "/clone/.venv/bin/memidx"\nargs = ["mcp"]\n'


def test_broken_lines_in_memidx_block_cost_one_parse_each() -> None:
    """Each line that is no TOML was tried with every run of lines after it: 800 such lines
    took 9 s (1,000 took about 18), cubic, at every install and uninstall."""
    broken = "".join(f"key{n} =\n" for n in range(1000))
    text = f"{BEGIN}\n{HEAD}{broken}{END}\n"

    started = time.monotonic()
    added = added_to_block(text)

    assert time.monotonic() - started < 2.0
    assert added == broken
