"""A person's `git fetch` that runs longer than share waits for it (share_fetch.WAIT, 10 s: a
slow network, a big pack) left their remote-tracking ref `origin/main` where it was, and share
merged that stale ref rather than what its own fetch brought (`refs/memidx/fetched/main`): its
push was refused (the remote had moved), and each try fetched, waited 10 s on the person's
fetch again and merged the same stale ref, for 300 s, then "the remote kept moving". share
now merges what it fetched, and a try after a refused push does not wait on the person's
fetch again.

The person's fetch is held, deterministically, before its pack (a `git` on its exec path),
and share's wait for it is cut to a fraction of a second so the test is bounded in time."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from memidx.config import Config, load_config
from memidx.memory import share as share_module
from memidx.memory import share_fetch
from memidx.memory.share import share
from tests.cli.test_forget import clones
from tests.cli.test_share_fetch_race import held_exec_path, wait_for
from tests.helpers import GIT_IDENTITY, clean_env

pytestmark = pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="gits seen in /proc")


@contextmanager
def held(tmp_path: Path, root: Path, args: Sequence[str]) -> Generator[subprocess.Popen[str]]:
    """A person's `git <args>` in `root`, held before its fetch's pack until the block ends
    (then waited for: its outcome is the process's)."""
    pause = tmp_path / "pause"
    real = Path(subprocess.run(["git", "--exec-path"], capture_output=True, text=True,
                               check=True).stdout.strip()) / "git"  # fmt: skip
    env = clean_env(GIT_EXEC_PATH=str(held_exec_path(tmp_path)), PAUSE_AT=str(pause),
                    REAL_GIT=str(real))  # fmt: skip
    person = subprocess.Popen(["git", *GIT_IDENTITY, *args], cwd=root, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    try:
        assert wait_for(None, Path(f"{pause}.in")), "the person's fetch never reached its pack"
        yield person
    finally:
        Path(f"{pause}.go").touch()
        person.communicate(timeout=120)


def test_share_merges_what_it_fetched_while_a_persons_fetch_runs_long(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = clones(tmp_path)
    one.note("theirs.md", "Theirs", "a note the first clone pushed about docker volumes")
    one.commit("one's note")
    one.git("push", "-q", "origin", "main")
    two.note("ours.md", "Ours", "a note of this clone's about kubernetes probes")
    two.commit("two's note")
    monkeypatch.setattr(share_fetch, "WAIT", 0.3)  # the person's fetch outlasts share's wait
    monkeypatch.setattr(share_module, "ATTEMPTS", 3)  # was: 40 tries over 300 s, then failed

    with held(tmp_path, two.root, ["fetch", "-q", "origin"]):
        started = time.monotonic()
        shared = share(load_config(two.root, env={}), sleep=lambda _: None)
        seconds = time.monotonic() - started

    assert shared.pushed and shared.attempts == 1, shared  # was: the remote kept moving
    assert seconds < 20, seconds
    pushed = two.git("ls-remote", "origin", "refs/heads/main").split()[0]
    assert pushed == two.git("rev-parse", "HEAD").strip()
    names = two.git("ls-tree", "-r", "--name-only", "HEAD").split()
    assert {"notes/theirs.md", "notes/ours.md"} <= set(names)


def test_a_try_after_a_refused_push_waits_not_on_the_persons_fetch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first try's fetch waits for the person's (their ahead/behind comes along); a try
    after a refused push fetches again into share's own ref and goes on at once."""
    one, two = clones(tmp_path)
    two.note("ours.md", "Ours", "a note of this clone's about kubernetes probes")
    two.commit("two's note")
    monkeypatch.setattr(share_fetch, "WAIT", 2.0)
    waits: list[float] = []
    real = share_fetch._no_fetch_of_theirs  # pyright: ignore[reportPrivateUsage]

    def timed(config: Config, until: float) -> bool:
        started = time.monotonic()
        answer = real(config, until)
        waits.append(time.monotonic() - started)
        return answer

    monkeypatch.setattr(share_fetch, "_no_fetch_of_theirs", timed)
    pushes: list[int] = []
    real_git = share_module._git  # pyright: ignore[reportPrivateUsage]

    def git(config: Config, *args: str) -> subprocess.CompletedProcess[str]:
        if args[:1] == ("push",) and not pushes:  # another clone pushed first, once
            pushes.append(1)
            one.note("theirs.md", "Theirs", "a note the first clone pushed about volumes")
            one.commit("one's note")
            one.git("push", "-q", "origin", "main")
        return real_git(config, *args)

    monkeypatch.setattr(share_module, "_git", git)
    one.note("first.md", "First", "a note the first clone pushed about caches")
    one.commit("one's first")
    one.git("push", "-q", "origin", "main")

    with held(tmp_path, two.root, ["fetch", "-q", "origin"]):
        shared = share(load_config(two.root, env={}), sleep=lambda _: None)

    assert shared.pushed and shared.attempts == 2, shared
    assert len(waits) == 2 and waits[0] >= 1.5 and waits[1] < 0.5, waits
