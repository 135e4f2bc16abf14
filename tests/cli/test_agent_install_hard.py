"""`memidx agent install|uninstall|status` against configurations people really have: values of
the wrong shape, a settings file linked into a dotfiles repository, an agent that writes its
own file while memidx writes it, a disk that fills between two files, a YAML `memory` mapping
memidx cannot edit in place, memidx's own entries the person edited. memidx never destroys
what it does not provably own, and never leaves an install half made."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_in_process


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A fresh repository (HOME and the agents' folders are the suite's throwaway ones:
    tests/conftest.py)."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def claude_user_files() -> tuple[Path, Path]:
    home = Path.home()
    return home / ".claude" / "settings.json", home / ".claude.json"


@pytest.mark.parametrize(
    ("agent", "where", "theirs"),
    [
        ("claude-code", ".claude/settings.json", {"hooks": "run-lint.sh"}),
        ("claude-code", ".claude/settings.json", {"hooks": {"Stop": {"hooks": []}}}),
        ("claude-code", ".mcp.json", {"mcpServers": ["github"]}),
        ("claude-code", ".claude/settings.local.json", {"enabledMcpjsonServers": "github"}),
        ("gemini", ".gemini/settings.json", {"mcpServers": "github"}),
        ("cursor", ".cursor/mcp.json", {"mcpServers": [{"command": "gh-mcp"}]}),
    ],
    ids=["hooks-a-string", "event-an-object", "servers-a-list", "approvals-a-string",
         "gemini-servers-a-string", "cursor-servers-a-list"],
)  # fmt: skip
def test_a_value_of_another_shape_is_left_alone_not_replaced(
    project: Path, agent: str, where: str, theirs: dict[str, Any]
) -> None:
    """The agent reads no such value, but it is the person's: memidx replaced it with its own
    table (their "github" approval, their hook script gone), saying nothing."""
    path = project / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(theirs))

    done = run_in_process(project, "agent", "install", agent)

    assert done.code == 1, done.out
    assert done.err.startswith(f"memidx: error: {path}: ") and done.err.count("\n") == 1
    assert "memidx left every file alone" in done.err
    assert json.loads(path.read_text()) == theirs
    assert sorted(p.name for p in project.rglob("*") if p.is_file()) == [path.name]
