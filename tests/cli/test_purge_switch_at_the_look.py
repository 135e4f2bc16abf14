"""A person's `git switch side` that starts while `memidx haystack purge --branch side` looks,
under the branch's lock, for a work tree that has side checked out or switches to it: the
look found none, the switch started, read side and wrote the work tree from it, and memidx
moved side under it (the forgotten bytes left in git's index and the files, staged against
the rewritten commit for the person's next commit). memidx now looks last at each process
that started since its look began (memidx/git/newcomers.py), as a note's commit does."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memidx.git import checkouts
from memidx.git.repo import GitRepo
from tests.cli.test_late_merge import wait_for
from tests.cli.test_purge_branch_switch import (
    HOLD_SWITCH,
    _purge,  # pyright: ignore[reportPrivateUsage]
    _side_with_a_secret,  # pyright: ignore[reportPrivateUsage]
)
from tests.helpers import NotesRepo, clean_env


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_switch_that_starts_during_the_purge_s_look_is_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, side = _side_with_a_secret(tmp_path, back=True)
    held, go = tmp_path / "held", tmp_path / "go"
    hook = tmp_path / "hold.sh"
    hook.write_text(HOLD_SWITCH.format(held=held, go=go))
    hook.chmod(0o755)
    started: list[subprocess.Popen[bytes]] = []
    look = checkouts.in_use

    def switch_starts_during_the_look(repo: GitRepo, branch: str) -> bool:
        found = look(repo, branch)
        locked = (one.root / ".git" / "refs" / "heads" / "side.lock").exists()
        if locked and not found and not started:  # the purge's look, under side's lock
            started.append(_switch(one, hook))
            wait_for("the switch to read the index", held.exists)
        return found

    monkeypatch.setattr(checkouts, "in_use", switch_starts_during_the_look)
    try:
        rewritten = _purge(one, side)
    finally:
        go.touch()
        for person in started:
            person.communicate(timeout=60)

    assert started, "the purge never looked under side's lock"
    assert rewritten is None  # refused, as for a switch it saw running
    assert one.git("rev-parse", "refs/heads/side").strip() == side.old


def _switch(one: NotesRepo, hook: Path) -> subprocess.Popen[bytes]:
    argv = ["git", "-c", f"core.fsmonitor={hook}", "switch", "-q", "side"]
    pipe = subprocess.PIPE
    return subprocess.Popen(argv, cwd=one.root, env=clean_env(), stdout=pipe, stderr=pipe)
