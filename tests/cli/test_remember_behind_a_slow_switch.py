"""`remember` while a person's `git switch` runs long (an LFS smudge of 12 s) and holds git's
index past memidx's wait: the note is answered pending, said "git kept its index locked" of no
one; it now names the switch. The finisher commits it on the branch it was remembered on once
the switch ends, and nothing is lost: the note on its branch, no file left in the other's."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import commit as git_commit
from memidx.memory.pending_notes import pending
from memidx.memory.remember import remember
from tests.helpers import GIT_IDENTITY, clean_env, started_memory
from tests.pending_runs import finishers, until

BODY = "Swap was full of old pages: a reboot emptied it.\n"
REF = "notes/swap-full.md"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="a git's holder is seen in /proc")
def test_a_note_behind_a_slow_switch_is_pending_said_why_then_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = started_memory(tmp_path)
    repo.git("switch", "-q", "-c", "slow")
    (repo.root / ".gitattributes").write_text("big.txt filter=slow\n")
    (repo.root / "big.txt").write_text("checked out slowly\n")
    repo.commit("a file a filter checks out")
    repo.git("switch", "-q", "main")
    ran, release = repo.root.parent / "smudging", repo.root.parent / "released"
    repo.git("config", "filter.slow.clean", "cat")
    # the switch runs until the test lets it end (at most 60 s), not 5 s: on a loaded machine
    # remember's own work and its two waits took more, and the switch ended under them
    smudge = f"touch {ran}; i=0; while [ ! -e {release} ] && [ $i -lt 1200 ]; do sleep 0.05;"
    repo.git("config", "filter.slow.smudge", f"{smudge} i=$((i+1)); done; cat")
    monkeypatch.setattr(git_commit, "WAIT_SECONDS", 1.0)  # 10 s: the switch would outlast 12
    # each wait's deadline and the seconds it was given (at its first look): waits counted
    # and their lengths read, not timed (the second try's is BEHIND_WAIT, 1 s, not 10)
    waits: dict[float, float] = {}
    wait = git_commit.wait_for_index

    def counted(lock: Path, root: Path, undone: str, deadline: float) -> None:
        waits.setdefault(deadline, deadline - time.monotonic())
        wait(lock, root, undone, deadline)

    monkeypatch.setattr(git_commit, "wait_for_index", counted)
    person = subprocess.Popen(
        ["git", *GIT_IDENTITY, "switch", "-q", "slow"], cwd=repo.root, env=clean_env(),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert until(ran.exists, 10)
        started = time.monotonic()
        said: list[str] = []
        done = remember(load_config(repo.root, env={}), "Swap full", BODY, notice=said.append)
        waited = time.monotonic() - started

        assert done.commit is None and done.pending is not None, said
        assert done.pending.startswith(f"{REF} is written but not committed yet: "), said
        why = f"git's index was held by git switch (pid {person.pid}) for all of memidx's wait"
        assert why in done.pending, done.pending
        assert len(waits) <= 2, (waits, waited)  # its wait (1 s here), once more, no more
        assert max(waits.values()) <= 1.0, (waits, waited)  # each 1 s: 10 s once was the second
        release.touch()
        _, err = person.communicate(timeout=60)
        assert person.returncode == 0, err
        assert until(lambda: not pending(load_config(repo.root, env={})), 60)
        assert repo.git("show", f"main:{REF}").endswith(BODY)  # on the branch it was for
        assert repo.git("branch", "--show-current") == "slow\n"
        assert repo.git("status", "--porcelain", "--untracked-files=all") == ""  # none left
    finally:
        person.kill()
        person.wait(timeout=10)
        assert until(lambda: not finishers(repo.root), 60)
