"""A `haystack commit` that a person's `git switch` beat (it landed while memidx waited for a
git, before memidx's move: tests/benchmark/lock_clash.py, 17 to 23 of ~25 haystack commits a
run) failed with "HEAD is on side now, not on main as when this began ... (to do it on side,
try again ...)", exit 1. The clone's segments, untracked, went along with the switch: the
commit is made again on the branch the switch took HEAD to, as that "try again" did, once the
switch ended. A stopped purge's commit, whose bytes are the branch's, stays refused there
(tests/cli/test_switch_during_commit.py)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_switch_during_commit import switching
from tests.helpers import NotesRepo


def test_a_haystack_commit_a_switch_beat_lands_on_the_branch_it_took_head_to(
    repo: NotesRepo, tmp_path: Path
) -> None:
    repo.note("seed.md", "Seed", "a first note")
    repo.commit("seed")
    repo.git("branch", "side")
    assert repo.memidx_process("ingest").code == 0
    filed = repo.memidx_process("file-turn", "--json", stdin=json.dumps({"text": "giraffe"}))
    assert filed.code == 0, filed.err
    main = repo.git("rev-parse", "main").strip()

    done = repo.memidx_process("haystack", "commit", **switching(tmp_path, "side"))

    assert (tmp_path / "switched").exists()  # the switch landed at memidx's commit-tree
    assert done.code == 0 and "Traceback" not in done.err, done.err
    assert repo.git("symbolic-ref", "HEAD").strip() == "refs/heads/side"
    assert repo.git("rev-parse", "main").strip() == main  # main as the person left it
    assert ".krd" in repo.git("ls-tree", "-r", "--name-only", "side", "--", "notes/haystack")
    assert repo.git("status", "--porcelain", "--untracked-files=all") == ""
