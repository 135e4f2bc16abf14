"""The memory the pending-note unit tests start from (tests/unit/test_pending_*.py and their
kin): `.memidx/` ignored, one committed note, and the note a test keeps pending."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import NotesRepo

TEXT = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of logs.\n"
REF = "notes/disk-full.md"


def started(folder: Path) -> NotesRepo:
    """A memory in `folder`/memory whose one commit holds notes/start.md."""
    repo = NotesRepo(folder / "memory")
    repo.write(".gitignore", ".memidx/\n")
    repo.write("notes/start.md", "# Start\n\nThe first note.\n")
    repo.commit("start")
    return repo
