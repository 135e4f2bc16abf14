"""A person's `git pull --no-rebase --autostash` that starts while memidx looks for running gits
under HEAD's lock, with a haystack commit (segment bytes from memory) on the way: the pull
read HEAD, memidx moved HEAD while the pull fetched, and the pull failed ("fetch updated the
current branch head ... Cannot fast-forward your working tree ... run git reset --hard", which
would have thrown away the person's edit). memidx now waits for it
(memidx/git/newcomers.py), as for a pull it saw running: the autostash comes back."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Collection
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import publish as publish_module
from memidx.git.commit import commit_paths
from tests.cli.test_forget import clones
from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env

SEGMENT = "notes/haystack/w1/2026-01.krd"
EDIT = "a person's unstaged edit\n"
FETCHING = """#!/bin/sh
touch "{fetched}"
sleep 1
exec git upload-pack "$@"
"""


def fetching_pull(one: NotesRepo, tmp_path: Path) -> subprocess.Popen[str]:
    """The person's pull, started now; returns once it read HEAD and its fetch is under way
    (held 1 s by an upload-pack that waits)."""
    fetched = tmp_path / "fetched"
    pack = tmp_path / "upload-pack.sh"
    pack.write_text(FETCHING.format(fetched=fetched))
    pack.chmod(0o755)
    argv = ["git", *GIT_IDENTITY, "pull", "-q", "--no-rebase", "--autostash", "--no-edit",
            f"--upload-pack={pack}"]  # fmt: skip
    pipe, env = subprocess.PIPE, clean_env()
    pull = subprocess.Popen(argv, cwd=one.root, env=env, stdout=pipe, stderr=pipe, text=True)
    for _ in range(1000):  # 10 s at most
        if fetched.exists():
            return pull
        time.sleep(0.01)
    pull.kill()
    raise AssertionError(f"the pull never fetched: {pull.communicate()}")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_pull_that_starts_during_the_look_is_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = clones(tmp_path)
    one.write(SEGMENT, b"turn 1\n")
    one.commit("haystack: segments of w1 (1 file)")
    one.git("push", "-q", "origin", "main")
    two.git("pull", "-q")
    two.note("theirs.md", "Theirs", "a note from the other machine")
    two.commit("theirs")
    two.git("push", "-q", "origin", "main")
    one.note("local.md", "Local", "a note of this machine")
    one.commit("local")
    one.write("notes/seed.md", EDIT)  # what the autostash takes aside and puts back
    pulls: list[subprocess.Popen[str]] = []
    look = publish_module.in_the_way

    def pull_starts_during_the_look(
        root: Path, commands: frozenset[str], among: Collection[str] = ()
    ) -> bool:
        busy = look(root, commands, among)
        if (one.root / ".git" / "HEAD.lock").exists() and not busy and not pulls:
            pulls.append(fetching_pull(one, tmp_path))
        return busy

    monkeypatch.setattr(publish_module, "in_the_way", pull_starts_during_the_look)
    data = b"turn 1\nturn 2\n"
    try:
        commit_paths(
            load_config(one.root, env={}), [SEGMENT], "haystack: segments of w1 (1 file)",
            written={SEGMENT: data},
        )  # fmt: skip
        _, err = pulls[0].communicate(timeout=60)
    finally:
        for pull in pulls:
            pull.kill()
            pull.wait()

    assert pulls[0].returncode == 0, err
    assert (one.root / "notes/seed.md").read_text() == EDIT  # the autostash came back
    assert one.git("show", f"HEAD:{SEGMENT}") == data.decode()
    assert one.git("show", f":{SEGMENT}") == data.decode()  # no stale index written back
    assert "notes/theirs.md" in one.git("ls-tree", "-r", "--name-only", "HEAD").split()
    assert one.git("status", "--porcelain", "--", "notes/theirs.md", SEGMENT).strip() == ""
    assert not (one.root / ".git" / "MERGE_AUTOSTASH").exists()
