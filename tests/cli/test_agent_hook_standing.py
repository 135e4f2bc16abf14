"""Which memory an agent's hook reaches, started in another folder than the agent works in:
the one its input names (`cwd`; Cursor's first `workspace_roots`, its input has no `cwd`),
never the one the hook process happened to start in."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from pathlib import Path

from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env

TRACE = Path(".memidx") / "agent-hook-error.log"


def indexed(root: Path) -> NotesRepo:
    repo = NotesRepo(root)
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    assert repo.memidx("ingest").code == 0
    return repo


def hook(started_in: Path, agent: str, event: str, payload: Mapping[str, object]) -> None:
    done = subprocess.run(
        [str(MEMIDX_BIN), "agent", "hook", agent, event], input=json.dumps(payload),
        cwd=started_in, capture_output=True, text=True, timeout=120, check=False,
        env=clean_env(MEMIDX_HOOK_EMBED="0", MEMIDX_AGENT_DEADLINE="60"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def turns(repo: NotesRepo, query: str) -> int:
    found = repo.memidx("search", "--json", "--kind", "turn", "--mode", "bm25", query)
    return len(found.json()["hits"])


def test_a_cursor_hook_started_elsewhere_files_into_its_workspaces_memory(
    tmp_path: Path,
) -> None:
    started, workspace = indexed(tmp_path / "started"), indexed(tmp_path / "workspace")
    base = {
        "conversation_id": "c1",
        "generation_id": "g1",
        "workspace_roots": [str(workspace.root)],
    }

    hook(started.root, "cursor", "beforeSubmitPrompt", {**base, "prompt": "cap vmmem?"})
    hook(started.root, "cursor", "afterAgentResponse", {**base, "text": "Cursor capped it."})

    assert turns(workspace, "Cursor") == 1
    assert turns(started, "Cursor") == 0  # was 1: the memory the hook was started in


def test_a_hook_whose_memory_cannot_load_leaves_no_trace_in_the_one_it_started_in(
    tmp_path: Path,
) -> None:
    """The agent's memory refuses its settings (its notes folder is a file): the failure's
    line went into the memory the hook process was started in, another memory."""
    started, broken = indexed(tmp_path / "started"), indexed(tmp_path / "agents")
    broken.write("pyproject.toml", '[tool.memidx]\nnotes_dir = "seed.txt"\n')
    broken.write("seed.txt", "a file, no folder\n")
    payload = {"session_id": "s1", "cwd": str(broken.root), "prompt": "hello"}

    hook(started.root, "claude-code", "UserPromptSubmit", payload)

    assert not (started.root / TRACE).exists()


def test_a_cursor_workspace_of_several_roots_files_into_the_root_that_is_a_memory(
    tmp_path: Path,
) -> None:
    """Its first root a project (a git repository that is no memory, then a plain folder):
    the hook asked the user's memory, none here, and the turn was lost."""
    started, memory = indexed(tmp_path / "started"), indexed(tmp_path / "memory")
    project, plain = NotesRepo(tmp_path / "project"), tmp_path / "plain"
    plain.mkdir()
    for n, first in enumerate((project.root, plain)):
        roots = [str(tmp_path / "gone"), str(first), str(memory.root)]
        base = {"conversation_id": f"c{n}", "generation_id": "g1", "workspace_roots": roots}
        hook(started.root, "cursor", "beforeSubmitPrompt", {**base, "prompt": "cap vmmem?"})
        hook(started.root, "cursor", "afterAgentResponse", {**base, "text": "Cursor capped it."})

    assert turns(memory, "Cursor") == 2
    assert turns(started, "Cursor") == 0
