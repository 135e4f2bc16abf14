"""How a remember in line and `memidx status` name the process that holds remember.lock
(memidx/memory/lock_holder.py): from its arguments, never beyond memidx's command."""

from __future__ import annotations

import pytest

from memidx.memory.lock_holder import process_named

PY = "/venv/bin/python3"
FINISHER = "the process memidx left to commit pending notes once git lets go (pid 7)"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        ([PY, "/venv/bin/memidx", "sync"], "memidx sync (pid 7)"),
        ([PY, "-m", "memidx", "-C", "/m", "remember", "--title", "x"], "memidx remember (pid 7)"),
        ([PY, "-m", "memidx", "hook", "post-commit"], "memidx's post-commit git hook (pid 7)"),
        ([PY, "-m", "memidx", "-C", "/m", "mcp", "--daemon", "/s"], "memidx's MCP server (pid 7)"),
        ([PY, "-m", "memidx.memory.pending_finisher", "/m"], FINISHER),
        ([PY, "-m", "memidx"], "memidx (pid 7)"),
        ([PY, "-c", "import fcntl", "/m/memidx/remember.lock"], "python3 (pid 7)"),
    ],
)  # fmt: skip
def test_the_holder_is_named_by_its_memidx_command(argv: list[str], said: str) -> None:
    assert process_named(argv, "python3", 7) == said
