"""A `haystack commit` that a person's `git switch` beat (it landed while memidx waited for a
git, before memidx's move: tests/benchmark/lock_clash.py, 17 to 23 of ~27 haystack commits a
run, the person back on main a second later) failed with "HEAD is on side now, not on main as
when this began ...", exit 1. The clone's segments, untracked, went along with the switch and
come back with the switch back: the commit now waits for HEAD to name its branch again (within
its 10 s) and lands there. One that stays on the other branch is refused as before, never
committed there (tests/cli/test_pending_switch.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.helpers import NotesRepo

# a `git` first on PATH: at memidx's first commit-tree the person switches to side, and back
# to main a second later
VISITING_GIT = """#!/bin/sh
for arg in "$@"; do
  if [ "$arg" = commit-tree ] && [ ! -e "$MARK" ]; then
    : > "$MARK"
    env -u GIT_INDEX_FILE "$REAL_GIT" switch -q side >/dev/null 2>&1
    ( sleep 1; env -u GIT_INDEX_FILE "$REAL_GIT" switch -q main && : > "$MARK.back" ) \\
      >/dev/null 2>&1 &
    break
  fi
done
exec "$REAL_GIT" "$@"
"""


def test_a_haystack_commit_a_visit_to_another_branch_beat_lands_once_head_is_back(
    repo: NotesRepo, tmp_path: Path
) -> None:
    import os

    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    repo.git("branch", "side")
    assert repo.memidx_process("ingest").code == 0
    filed = repo.memidx_process("file-turn", "--json", stdin=json.dumps({"text": "giraffe"}))
    assert filed.code == 0, filed.err
    side = repo.git("rev-parse", "side").strip()
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "git").write_text(VISITING_GIT)
    (shim / "git").chmod(0o755)
    real = shutil.which("git")
    assert real is not None
    mark = tmp_path / "switched"

    done = repo.memidx_process(
        "haystack", "commit", PATH=f"{shim}:{os.environ['PATH']}", REAL_GIT=real, MARK=str(mark)
    )

    assert mark.exists() and Path(f"{mark}.back").exists()  # the visit, and the way back
    assert done.code == 0 and "Traceback" not in done.err, done.err
    assert repo.git("symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert repo.git("rev-parse", "side").strip() == side  # never committed there
    assert ".krd" in repo.git("ls-tree", "-r", "--name-only", "main", "--", "notes/haystack")
    assert repo.git("status", "--porcelain", "--untracked-files=all") == ""
