"""What `memidx agent status` says to run when a project's agent file runs a memidx that is
gone (an older memidx wrote the clone's absolute path there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_in_process

GONE = "/gone/clone/.venv/bin/memidx"


@pytest.mark.parametrize("agent", ["cursor", "codex"])
def test_a_project_file_is_told_to_install_again_in_its_project(
    user_home: Path, agent: str
) -> None:
    """It said "run `memidx agent install cursor` again from your memory's clone", which put
    the hooks into the clone's own project and left this project's running the memidx that
    was gone; a project install names no clone's path, so it is run in the project."""
    project = user_home / "my project"
    (project / ".git").mkdir(parents=True)
    assert run_in_process(project, "agent", "install", agent).code == 0
    hooks = project / f".{agent}" / "hooks.json"
    doc = json.loads(hooks.read_text())
    for event, entries in doc["hooks"].items():
        for entry in entries:  # Codex's nest their commands one level deeper
            for one in entry.get("hooks", [entry]):
                one["command"] = f"{GONE} agent hook {agent} {event}"
    hooks.write_text(json.dumps(doc))

    said = run_in_process(project, "agent", "status")

    line = next(one for one in said.out.splitlines() if f"{hooks}:" in one)
    again = f"which no longer exists: run `memidx agent install {agent}` again in {project})"
    assert f"(they run {GONE}, {again}" in line, line
