"""The command share's hint names for a merge a person must make works when run as written.

share merges what its own fetch brought (`refs/memidx/fetched/<branch>`) and moves the
person's `origin/<branch>` there only when no fetch of theirs runs (memidx.memory.share_fetch):
left where it was, the hint's `git merge @{upstream}` merged that stale ref, "Already up to
date.", no conflict to resolve, and the next share stopped on the same one. The hint is a
`git pull --no-rebase` now, which fetches what it merges."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from memidx.config import Config, load_config
from memidx.errors import MemidxError
from memidx.memory import share_fetch
from memidx.memory.share import share
from tests.cli.test_forget import clones
from tests.helpers import GIT_IDENTITY, clean_env


def _busy(_config: Config, _until: float, *_: frozenset[str]) -> bool:
    """A fetch of the person's runs: share leaves `origin/main` to it."""
    return False


@pytest.mark.parametrize(
    ("setting", "said", "command"),
    [
        ("", "merge conflict", r"resolve it: (git [^,]+),"),
        ("only", "only fast-forward", r"merge by hand \((git [^)]+)\)"),
    ],
    ids=["conflict", "ff-only"],
)
def test_the_hinted_merge_merges_what_share_fetched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: str, said: str, command: str
) -> None:
    one, two = clones(tmp_path)
    one.note("seed.md", "Seed", "the first clone rewrote this line")
    one.commit("one edits")
    one.git("push", "-q", "origin", "main")
    two.note("seed.md" if not setting else "ours.md", "Seed", "the second clone's other line")
    two.commit("two edits")
    if setting:
        two.git("config", "merge.ff", setting)
    stale = two.git("rev-parse", "origin/main").strip()
    monkeypatch.setattr(share_fetch, "no_fetch_of_theirs", _busy)

    with pytest.raises(MemidxError, match=said) as raised:
        share(load_config(two.root, env={}), sleep=lambda _: None)

    assert two.git("rev-parse", "origin/main").strip() == stale  # left to the person's fetch
    found = re.search(command, raised.value.hint)
    assert found, raised.value.hint
    argv = ["git", *GIT_IDENTITY, *found.group(1).split()[1:]]
    done = subprocess.run(argv, cwd=two.root, env=clean_env(), capture_output=True, text=True,
                          check=False)  # fmt: skip
    theirs = one.git("rev-parse", "HEAD").strip()
    if not setting:  # the conflict, now the person's to resolve
        assert "CONFLICT" in done.stdout + done.stderr, (done.stdout, done.stderr)
        assert two.git("rev-parse", "MERGE_HEAD").strip() == theirs  # was: Already up to date
    else:
        assert done.returncode == 0, done.stderr
        two.git("merge-base", "--is-ancestor", theirs, "HEAD")  # was: Already up to date
