"""The memory the pending-note tests start from (tests/unit/test_pending_*.py and their kin):
`.memidx/` ignored, one committed note, and the note a test keeps pending; and a commit of
memidx's that moves HEAD and then fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import Config, load_config
from memidx.errors import GitError
from memidx.memory.pending_notes import keep
from tests.helpers import NotesRepo, started_memory

TEXT = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of logs.\n"
REF = "notes/disk-full.md"


def started(folder: Path) -> NotesRepo:
    """A memory in `folder`/memory whose one commit holds notes/start.md."""
    repo = NotesRepo(folder / "memory")
    repo.write(".gitignore", ".memidx/\n")
    repo.write("notes/start.md", "# Start\n\nThe first note.\n")
    repo.commit("start")
    return repo


def kept_pending(folder: Path) -> tuple[NotesRepo, Config]:
    """An indexed memory (tests.helpers.started_memory) with REF written and kept pending on
    main, as a `remember` leaves it while git is busy; and its config."""
    repo = started_memory(folder)
    config = load_config(repo.root, env={})
    repo.write(REF, TEXT)
    keep(config, REF, "Disk full", TEXT, "refs/heads/main")
    return repo, config


def index_held_past_the_move(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each commit memidx makes moves HEAD and then fails: git's index held by a person's git
    past the wait (`committed ..., but git's index stayed locked`)."""
    from memidx.git import commit as commit_module

    def held(*_: object, **__: object) -> list[str]:
        raise GitError("committed it, but git's index stayed locked", "run `git reset`")

    monkeypatch.setattr(commit_module, "follow", held)
