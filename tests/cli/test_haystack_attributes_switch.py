"""The haystack's first commit writes its .gitattributes into the work tree once HEAD holds it
(when the commit's own index follow did not). A person's `git switch side` (side made before
the haystack) under way writes the work tree and git's index first and HEAD last: memidx saw
HEAD still on main, found the file gone (the switch took it out) and wrote it again, untracked
on side once the switch wrote HEAD, and every `git switch main` after failed ("untracked
working tree files would be overwritten by checkout: notes/haystack/.gitattributes"): the
person stayed on side and the clone never converged (tests/benchmark/chaos.py, seed 5: 51
notes and 43 records never reached the remote)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import commit as commit_module
from memidx.haystack.segment_commit import commit_haystack
from tests.helpers import started_memory

ATTRIBUTES = "notes/haystack/.gitattributes"


def test_a_switch_under_way_at_the_haystack_commit_leaves_no_attributes_on_side(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = started_memory(tmp_path)
    repo.git("branch", "side")  # before the haystack: no .gitattributes there
    filed = repo.memidx_process("file-turn", "--json", stdin=json.dumps({"text": "a turn"}))
    assert filed.code == 0, filed.err
    real = commit_module.commit_paths

    def a_switch_midway(*args: object, **kw: object) -> str:
        commit: str = real(*args, **kw)  # type: ignore[arg-type]
        assert (repo.root / ATTRIBUTES).is_file()  # the commit's own follow wrote it
        # the switch: work tree and index as side's, HEAD still main (written last)
        repo.git("switch", "-q", "side")
        repo.git("symbolic-ref", "HEAD", "refs/heads/main")
        # the folder stays: the agent's next segment is in it (an empty one, for git status)
        (repo.root / ATTRIBUTES).parent.mkdir(exist_ok=True)
        return commit

    monkeypatch.setattr(commit_module, "commit_paths", a_switch_midway)
    try:
        commit_haystack(load_config(repo.root, env={}))
    finally:
        monkeypatch.undo()
    repo.git("symbolic-ref", "HEAD", "refs/heads/side")  # the switch ends: HEAD written

    assert ATTRIBUTES in repo.git("ls-tree", "-r", "--name-only", "main")
    assert repo.git("status", "--porcelain", "--untracked-files=all") == ""
    repo.git("switch", "-q", "main")  # refused while the file stayed untracked on side
    assert (repo.root / ATTRIBUTES).is_file()
    assert repo.git("status", "--porcelain", "--untracked-files=all") == ""
