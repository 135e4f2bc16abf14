"""A pending note whose commit moved HEAD and then failed (git's index held by a person's git
past the wait: `committed ..., but git's index stayed locked`) is in HEAD: the warning said it
"was not committed" (the finisher's: "... it stays pending"), and a person or agent reading it
remembered the note again or committed it by hand. It says the note is committed, and how."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import GitError
from memidx.git import commit as commit_module
from memidx.memory.pending_notes import commit_pending, keep
from tests.helpers import NotesRepo, started_memory

OLDER = "---\ntitle: Disk full\ncreated: '2026-12-05'\n---\n\nThe disk was full of old logs.\n"
OLDER_REF = "notes/disk-full.md"


@pytest.mark.parametrize("only_commit", [False, True], ids=["sync", "finisher"])
def test_a_pending_note_whose_commit_failed_past_the_move_is_said_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, only_commit: bool
) -> None:
    repo: NotesRepo = started_memory(tmp_path)
    config = load_config(repo.root, env={})
    repo.write(OLDER_REF, OLDER)  # as a `remember` leaves it while git is busy
    keep(config, OLDER_REF, "Disk full", OLDER, "refs/heads/main")

    def held(*_: object, **__: object) -> list[str]:
        raise GitError("git's index stayed locked", "run `git reset`")

    monkeypatch.setattr(commit_module, "follow", held)
    said: list[str] = []

    done = commit_pending(config, None, said.append, only_commit=only_commit)

    head = repo.git("rev-parse", "HEAD").strip()
    assert repo.git("log", "-1", "--format=%s") == "memidx remember: Disk full\n"
    # the finisher's also said "(it stays pending)" of this note HEAD holds
    assert said == [
        f"warning: {OLDER_REF} is committed ({head[:12]}), but its commit then failed: git's "
        "index stayed locked (run `git reset`)"
    ], said  # was: notes/disk-full.md was not committed: ...
    assert done.commits == {}
