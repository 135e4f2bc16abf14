"""A person's `git fetch` that runs long (a slow network, a big pack) leaves their
remote-tracking ref `origin/main` where it was (share moves it only when no such fetch runs),
and share merged that stale ref rather than what its own fetch brought
(`refs/memidx/fetched/main`): its push was refused (the remote had moved), and each try
fetched, waited 10 s on the person's fetch again and merged the same stale ref, for 300 s,
then "the remote kept moving". share now merges what it fetched, and no try's fetch waits on
the person's fetch (the first waited 10 s).

The person's fetch is held, deterministically, before its pack (a `git` on its exec path)."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from memidx.config import Config, load_config
from memidx.memory import share as share_module
from memidx.memory import share_fetch
from memidx.memory.share import Shared, share
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
    """share merges what it fetched at once; its push, which writes origin/main as git's
    does, waits for the person's fetch to end, which then does not fail ("cannot lock ref")."""
    one, two = clones(tmp_path)
    one.note("theirs.md", "Theirs", "a note the first clone pushed about docker volumes")
    one.commit("one's note")
    one.git("push", "-q", "origin", "main")
    two.note("ours.md", "Ours", "a note of this clone's about kubernetes probes")
    two.commit("two's note")
    monkeypatch.setattr(share_module, "ATTEMPTS", 3)  # was: 40 tries over 300 s, then failed
    outcome: list[Shared | BaseException] = []

    def run_share() -> None:
        try:
            outcome.append(share(load_config(two.root, env={}), sleep=lambda _: None))
        except BaseException as exc:  # noqa: BLE001 (said by the assertion below)
            outcome.append(exc)

    with held(tmp_path, two.root, ["fetch", "-q", "origin"]) as person:
        sharing = threading.Thread(target=run_share)
        sharing.start()
        for _ in range(400):  # share merged what it fetched, the person's fetch still held
            if outcome or "notes/theirs.md" in two.git("ls-tree", "-r", "--name-only", "HEAD"):
                break
            time.sleep(0.05)
        merged = "notes/theirs.md" in two.git("ls-tree", "-r", "--name-only", "HEAD")
        sharing.join(timeout=3)  # its push waits for the held fetch (was: pushed under it)
    sharing.join(timeout=120)

    assert merged, outcome  # was: origin/main merged as the held fetch left it, stale
    shared = outcome[0]
    assert isinstance(shared, Shared) and shared.pushed and shared.attempts == 1, shared
    assert person.returncode == 0  # was: cannot lock ref 'refs/remotes/origin/main'
    pushed = two.git("ls-remote", "origin", "refs/heads/main").split()[0]
    assert pushed == two.git("rev-parse", "HEAD").strip()
    names = two.git("ls-tree", "-r", "--name-only", "HEAD").split()
    assert {"notes/theirs.md", "notes/ours.md"} <= set(names)


def test_no_try_s_fetch_waits_on_the_persons_fetch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each try's fetch (the first too: it waited 10 s) fetches into share's own ref, leaves
    `origin/main` to the person's fetch that runs and goes on at once."""
    one, two = clones(tmp_path)
    two.note("ours.md", "Ours", "a note of this clone's about kubernetes probes")
    two.commit("two's note")
    waits: list[float] = []
    real = share_fetch.no_fetch_of_theirs

    def timed(config: Config, until: float) -> bool:
        started = time.monotonic()
        answer = real(config, until)
        waits.append(time.monotonic() - started)
        return answer

    monkeypatch.setattr(share_fetch, "no_fetch_of_theirs", timed)
    # the push's own wait for the person's fetch is another test's (above)
    monkeypatch.setattr(share_module, "_no_fetch_under_the_push", _no_wait)
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
    assert len(waits) == 2 and max(waits) < 2.0, waits  # the first was 10 s


def _no_wait(*_: object) -> None:
    """share's wait before its push, left out."""
