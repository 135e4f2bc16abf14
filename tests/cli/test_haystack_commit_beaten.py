"""A `haystack commit` that a person's `git switch` beat (it landed while memidx waited for a
git, before memidx's move: tests/benchmark/lock_clash.py, 17 to 23 of ~27 haystack commits a
run, the person back on main a second later) failed with "HEAD is on side now, not on main as
when this began ...", exit 1. The clone's segments, untracked, went along with the switch and
come back with the switch back: the commit now waits for HEAD to name its branch again (within
its 10 s) and lands there. One that stays on the other branch is refused as before, never
committed there (tests/cli/test_pending_switch.py)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from tests.git_shims import shim_env
from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env

# a `git` first on PATH: at memidx's first commit-tree the person switches to side, and back
# to main a second later
VISITING_GIT = """#!/bin/sh
for arg in "$@"; do
  if [ "$arg" = commit-tree ] && [ ! -e "$MARK" ]; then
    : > "$MARK"
    env -u GIT_INDEX_FILE "$REAL_GIT" switch -q side >/dev/null 2>&1
    ( sleep "$AWAY"; env -u GIT_INDEX_FILE "$REAL_GIT" switch -q main && : > "$MARK.back" ) \\
      >/dev/null 2>&1 &
    break
  fi
done
exec "$REAL_GIT" "$@"
"""


def _a_filed_turn_and_a_side_branch(repo: NotesRepo) -> None:
    """A committed seed note, a branch `side` at it, and a turn filed (for haystack commit)."""
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    repo.git("branch", "side")
    assert repo.memidx_process("ingest").code == 0
    filed = repo.memidx_process("file-turn", "--json", stdin=json.dumps({"text": "giraffe"}))
    assert filed.code == 0, filed.err


def _visiting_git(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """VISITING_GIT first on PATH: its PATH and REAL_GIT; the mark file."""
    return shim_env(tmp_path / "bin", VISITING_GIT, os.environ["PATH"]), tmp_path / "switched"


def test_a_haystack_commit_a_visit_to_another_branch_beat_lands_once_head_is_back(
    repo: NotesRepo, tmp_path: Path
) -> None:
    _a_filed_turn_and_a_side_branch(repo)
    side = repo.git("rev-parse", "side").strip()
    shimmed, mark = _visiting_git(tmp_path)

    done = repo.memidx_process("haystack", "commit", **shimmed, MARK=str(mark), AWAY="1")

    assert mark.exists() and Path(f"{mark}.back").exists()  # the visit, and the way back
    assert done.code == 0 and "Traceback" not in done.err, done.err
    assert repo.git("symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert repo.git("rev-parse", "side").strip() == side  # never committed there
    assert ".krd" in repo.git("ls-tree", "-r", "--name-only", "main", "--", "notes/haystack")
    assert repo.git("status", "--porcelain", "--untracked-files=all") == ""


def test_a_haystack_commit_waiting_for_head_s_return_holds_no_following_lock(
    repo: NotesRepo, tmp_path: Path
) -> None:
    """While it waits for the switch back, nothing of memidx's is to follow: a `following`
    lock held then (taken at the move it was about to make) made a person's commit on the
    other branch, whose drift check found the index behind, wait for memidx, which waited
    for that person to come back."""
    from memidx.config import load_config
    from memidx.index.following import followed_now

    _a_filed_turn_and_a_side_branch(repo)
    shimmed, mark = _visiting_git(tmp_path)
    config = load_config(repo.root, {"MEMIDX_ROOT": str(repo.root)})
    env = clean_env(MEMIDX_ROOT=str(repo.root), **shimmed, MARK=str(mark), AWAY="3")
    held: list[bool] = []
    with subprocess.Popen(
        [str(MEMIDX_BIN), "haystack", "commit"], cwd=repo.root, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    ) as memidx:  # fmt: skip
        try:
            deadline = time.monotonic() + 20
            while memidx.poll() is None and time.monotonic() < deadline:
                if mark.exists() and not Path(f"{mark}.back").exists():
                    time.sleep(0.3)  # memidx sees the switch and lets go
                    if not Path(f"{mark}.back").exists():
                        held.append(followed_now(config))
                time.sleep(0.05)
            _, err = memidx.communicate(timeout=30)
        finally:
            if memidx.poll() is None:
                memidx.kill()
    assert memidx.returncode == 0, err
    # it lets go once it sees the switch (on a loaded machine later than the 0.3 s given it)
    # and takes nothing again until HEAD is back
    assert False in held, held
    assert len(held) > 5 and not any(held[held.index(False) :]), held
