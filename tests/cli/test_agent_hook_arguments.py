"""`memidx agent hook` given no agent or event, as a person tries it by hand: it fails open
(exit 0, nothing on stdout) and `memidx status` names what it was given in words."""

from __future__ import annotations

import pytest

from tests.helpers import NotesRepo


@pytest.mark.parametrize(
    ("argv", "given"),
    [([], "given: none"), (["claude-code"], "given: claude-code"), (["--help"], "given: --help")],
)
def test_a_hook_without_its_agent_and_event_is_named_so_in_status(
    repo: NotesRepo, argv: list[str], given: str
) -> None:
    """With no arguments status said `? ?: takes an agent and an event, not: (failed open)`,
    the words after `not:` missing."""
    repo.note("wsl.md", "WSL eats all the RAM", "Cap vmmem with memory=4GB in .wslconfig.")
    repo.commit()
    assert repo.memidx("ingest").code == 0

    hook = repo.memidx_process("agent", "hook", *argv, stdin="{}")
    status = repo.memidx_process("status")

    assert hook.code == 0 and hook.out == "", hook
    line = next(one for one in status.out.splitlines() if one.startswith("agent hook:"))
    assert "takes an agent and an event (memidx agent hook <agent> <event>)" in line, line
    assert line.endswith(f"{given} (failed open)"), line
