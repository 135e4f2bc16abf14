"""`memidx haystack purge` moved HEAD with no copy of git's index made before (it passed its
move no `ready`): its follow (`git reset` of the blanked segments) ran on git's index under
`.git/index.lock`, each `git add`, `commit`, `switch` or `stash` of the person's refused
meanwhile. It brings a copy to its commit before the move now, as remember does: the lock
is held for a rename."""

from __future__ import annotations

from pathlib import Path

import pytest

from memidx.children import SHELL
from tests.git_shims import index_lock_watched
from tests.helpers import NotesRepo
from tests.memories import turn_forgotten


@pytest.mark.skipif(SHELL is None, reason="the move's follow runs in a POSIX shell")
def test_a_purge_holds_index_lock_for_a_rename_alone(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    turn_forgotten(repo)
    log = index_lock_watched(monkeypatch, tmp_path, repo.root)
    before = repo.git("rev-parse", "HEAD").strip()

    purged = repo.memidx("haystack", "purge")

    monkeypatch.undo()
    assert purged.code == 0, purged.err
    assert repo.git("rev-parse", "HEAD").strip() != before  # the purge moved HEAD
    assert log.read_text() == ""
    assert repo.git("status", "--porcelain", "-uall", "--", "notes") == ""
    assert repo.git("diff", "--cached", "--name-only") == ""
