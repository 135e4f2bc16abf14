"""A late `git pull` beside `memidx haystack purge`'s commit of other writers' blanked segments
(memidx.haystack.purge_foreign): that commit brings new bytes of tracked files, which the pull
fails on as on a new note (tests/cli/test_late_pull_fetch.py), and when HEAD cannot be put back
for it, the line for `memidx status` must be left as for `remember` and `haystack commit`."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest

from memidx.git import commit as commit_module
from tests.cli.test_forget import clones
from tests.helpers import NotesRepo

SAID = "a git pull of this clone (pid 4242) started as memidx committed the segments"


def _file(repo: NotesRepo, text: str) -> str:
    run = repo.memidx("file-turn", "--json", stdin=json.dumps({"text": text}))
    assert run.code == 0, run.err
    return str(run.json()["id"])


def _a_pull(_root: Path) -> dict[str, str]:
    """committers' answer after the move: one person's `git pull`, still in its fetch."""
    return {"4242": "pull 1"}


def _not_put_back(
    _root: Path, _late: Mapping[str, str], _commit: str, _paths: Sequence[str], *,
    unhelped: Callable[[str, str], None], **_: object,
) -> None:  # fmt: skip
    """late_pull.put_back_for_a_pull that could not put HEAD back (a lock held past its wait)."""
    unhelped(SAID, "")


def _settled(*_: object) -> None:
    """late.settle: the pull (no process here) ended."""


def test_a_purge_beside_a_late_pull_not_put_back_for_leaves_the_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = clones(tmp_path)
    for repo in (one, two):
        assert repo.memidx("ingest").code == 0
    gone = _file(one, "giraffe turn filed by one")
    assert one.memidx("haystack", "commit").code == 0
    two.git("pull", "-q", "--no-rebase", str(one.root), "main")
    assert two.memidx("sync").code == 0
    assert two.memidx("forget", gone).code == 0
    monkeypatch.setattr(commit_module, "committers", _a_pull)
    monkeypatch.setattr(commit_module, "put_back_for_a_pull", _not_put_back)
    monkeypatch.setattr(commit_module, "settle", _settled)

    purged = two.memidx("haystack", "purge", "--json")

    assert purged.json()["other_writers"], purged.err  # one's segment blanked by a commit
    monkeypatch.undo()
    line = [
        ln for ln in two.memidx_process("status").out.splitlines() if ln.startswith("git pull:")
    ]
    assert line and SAID in line[0], line
