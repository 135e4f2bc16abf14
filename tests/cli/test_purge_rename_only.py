"""`memidx haystack purge` moved HEAD with no copy of git's index made before (it passed its
move no `ready`): its follow (`git reset` of the blanked segments) ran on git's index under
`.git/index.lock`, each `git add`, `commit`, `switch` or `stash` of the person's refused
meanwhile. It brings a copy to its commit before the move now, as remember does: the lock
is held for a rename."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memidx.children import SHELL
from tests.helpers import NotesRepo

# a `git` first on PATH that logs each git memidx runs on the move's copy of the index while
# index.lock is taken (the follow under the lock)
WATCHING_GIT = """#!/bin/sh
case "$GIT_INDEX_FILE" in *memidx-follow-index)
  [ ! -e "$ROOT/.git/index.lock" ] || echo "git $* under index.lock" >> "$LOG" ;;
esac
exec "$REAL_GIT" "$@"
"""


@pytest.mark.skipif(SHELL is None, reason="the move's follow runs in a POSIX shell")
def test_a_purge_holds_index_lock_for_a_rename_alone(
    repo: NotesRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    assert repo.memidx("ingest").code == 0
    filed = repo.memidx_process("file-turn", "--json", stdin=json.dumps({"text": "giraffe"}))
    assert filed.code == 0, filed.err
    assert repo.memidx_process("haystack", "commit").code == 0
    assert repo.memidx_process("forget", str(filed.json()["id"])).code == 0
    assert repo.memidx_process("haystack", "commit").code == 0
    shim, log = tmp_path / "bin", tmp_path / "log"
    shim.mkdir()
    (shim / "git").write_text(WATCHING_GIT)
    (shim / "git").chmod(0o755)
    log.write_text("")
    real = shutil.which("git")
    assert real is not None
    for key, value in {
        "REAL_GIT": real, "LOG": str(log), "ROOT": str(repo.root),
        "PATH": f"{shim}:{Path(real).parent}:/usr/bin:/bin",
    }.items():  # fmt: skip
        monkeypatch.setenv(key, value)
    before = repo.git("rev-parse", "HEAD").strip()

    purged = repo.memidx("haystack", "purge")

    monkeypatch.undo()
    assert purged.code == 0, purged.err
    assert repo.git("rev-parse", "HEAD").strip() != before  # the purge moved HEAD
    assert log.read_text() == ""
    assert repo.git("status", "--porcelain", "-uall", "--", "notes") == ""
    assert repo.git("diff", "--cached", "--name-only") == ""
