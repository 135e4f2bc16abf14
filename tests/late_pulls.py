"""A person's `git pull` that started the instant after memidx's last look for a committing git
(memidx.git.publish.arrived): it read HEAD and git's index before memidx's move, then waits in
its fetch (HELD, tests/cli/test_share_fetch_race.py) until let go. The set-up of the late-pull
tests (tests/cli/test_late_pull_*.py): clone `one`, with `origin` a commit ahead."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import GitBusy
from memidx.git import publish as publish_module
from memidx.git.commit import commit_paths
from memidx.git.newcomers import COMMITTING
from tests.cli.test_forget import clones
from tests.cli.test_share_fetch_race import HELD, held_exec_path, wait_for
from tests.helpers import GIT_IDENTITY, NotesRepo, clean_env

NOTE = "---\ntitle: Agent's note\n---\n\nremembered by an agent about docker layers\n"


@dataclass(frozen=True, slots=True)
class LatePull:
    """Clone `one` and the pull (in `pulls` once memidx looked), held until `go`."""

    one: NotesRepo
    pause: Path
    pulls: list[subprocess.Popen[str]]

    def go(self) -> None:
        """Let the pull's fetch go on."""
        Path(f"{self.pause}.go").touch()

    def outcome(self) -> subprocess.CompletedProcess[str]:
        """The pull's run, once it ended (after `go`)."""
        pull = self.pulls[0]
        out, err = pull.communicate(timeout=120)
        return subprocess.CompletedProcess(pull.args, pull.returncode, out, err)


def pull_at_the_look(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, held: str = HELD, *, ahead: bool = True
) -> LatePull:
    """Clones with `origin` a commit ahead of `one` (`ahead`; else `one` holds all of it: the
    pull fetches nothing new), and memidx's look for a committing git in `one` patched to
    start the person's pull right after it, waiting until it is in its fetch.
    `held`: the `git` of the pull's exec path (HELD: waits before the fetch's pack)."""
    one, two = clones(tmp_path)
    if ahead:
        two.note("theirs.md", "Theirs", "a note from the other machine")
        two.commit("theirs")
        two.git("push", "-q", "origin", "main")
    pause = tmp_path / "pause"
    real_git = Path(subprocess.run(["git", "--exec-path"], capture_output=True, text=True,
                                   check=True).stdout.strip()) / "git"  # fmt: skip
    exec_path = held_exec_path(tmp_path)
    (exec_path / "git").write_text(held)
    env = clean_env(GIT_EXEC_PATH=str(exec_path), PAUSE_AT=str(pause), REAL_GIT=str(real_git))
    pulls: list[subprocess.Popen[str]] = []
    real = publish_module.arrived

    def look(root: Path, since: int | None, commands: frozenset[str] = COMMITTING) -> bool:
        busy = real(root, since, commands)
        if busy or pulls:
            return busy
        argv = ["git", *GIT_IDENTITY, "pull", "-q", "--no-rebase", "--no-edit"]
        pulls.append(subprocess.Popen(argv, cwd=one.root, env=env, text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE))  # fmt: skip
        assert wait_for(None, Path(f"{pause}.in")), "the pull never reached its fetch's pack"
        return False  # it started an instant after the look: HEAD read, then its fetch

    monkeypatch.setattr(publish_module, "arrived", look)
    return LatePull(one, pause, pulls)


def commit_beside_a_late_pull(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    ref: str,
    data: bytes,
    *,
    before: Callable[[], None] = lambda: None,
    held: str = HELD,
) -> tuple[NotesRepo, subprocess.CompletedProcess[str]]:
    """memidx commits `ref` from `data` beside a late pull (pull_at_the_look); the pull's
    outcome. `before`: run once memidx is done, before the pull goes on."""
    late = pull_at_the_look(tmp_path, monkeypatch, held)
    try:
        commit_paths(load_config(late.one.root, env={}), [ref], "memidx remember: Agent's note",
                     written={ref: data})  # fmt: skip
    except GitBusy:
        pass  # HEAD put back for the pull (or, before, the pull still ran as the wait ended)
    finally:
        before()
        late.go()  # the pull's fetch goes on once memidx is done
    return late.one, late.outcome()
