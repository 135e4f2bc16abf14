"""Which gits beside a late `git pull` keep memidx from putting HEAD back for it
(memidx.git.late_pull): a person's, still running; not one that runs under the pull (a child
its fetch started, in its exec taken for any git) nor one that ended since the look (a commit
that read memidx's HEAD and ended cannot fail on a HEAD put back; one that moved HEAD has the
put-back's compare-and-swap refuse)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memidx.git import late_pull
from memidx.git.publish import started


@pytest.fixture
def gits(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """pid -> committers' word for it: `pull` (before its merge), `child` (the pull's, named
    as a git in its exec is: any git), `person` (another running git), `ended`."""

    def fetching(pid: str) -> bool:  # as a pull in its fetch is (its fetch its one child)
        return True

    monkeypatch.setattr(late_pull, "_fetching", fetching)
    pull = subprocess.Popen(["sh", "-c", "sleep 60 & wait"])
    person = subprocess.Popen(["sleep", "60"])
    ended = subprocess.Popen(["true"])
    ended.wait()
    children, child = Path(f"/proc/{pull.pid}/task/{pull.pid}/children"), ""
    try:
        until = time.monotonic() + 30
        while not children.read_text().split() and time.monotonic() < until:
            time.sleep(0.01)
        child = children.read_text().split()[0]
        yield {
            "pull": f"{pull.pid}:pull {started(str(pull.pid))}",
            "child": f"{child}:?alias {started(child)}",
            "person": f"{person.pid}:commit {started(str(person.pid))}",
            "ended": f"{ended.pid}:commit 1",
            "reused": f"{person.pid}:commit 1",  # its pid, another start: a git that ended
        }
    finally:
        if child:
            with contextlib.suppress(OSError):
                os.kill(int(child), signal.SIGKILL)
        for process in (pull, person):
            process.kill()
            process.wait()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
@pytest.mark.parametrize(
    ("beside", "alone"),
    [
        ((), True),
        (("child",), True),  # was: taken for a person's git, nothing put back
        (("ended",), True),  # was: as above
        (("reused",), True),
        (("person",), False),
        (("child", "person"), False),
    ],
    ids=["pull-alone", "its-child", "ended", "pid-used-again", "person", "child-and-person"],
)
def test_only_a_running_git_not_the_pull_s_keeps_head_where_memidx_moved_it(
    gits: dict[str, str], beside: tuple[str, ...], alone: bool
) -> None:
    late = dict(gits[name].split(":", 1) for name in ("pull", *beside))
    pull = gits["pull"].split(":")[0]

    assert late_pull._pulls_alone(late) == ([pull] if alone else [])  # pyright: ignore[reportPrivateUsage]


def test_no_pull_is_none_alone() -> None:
    assert late_pull._pulls_alone({}) == []  # pyright: ignore[reportPrivateUsage]


# a pull whose one child forks (its command line the pull's) and, after $AFTER s, execs a
# program whose command line holds $EXECS (not on the pull's own command line)
FORKS = """import os, time
if os.fork() == 0:
    time.sleep(float(os.environ["AFTER"]))
    os.execv("/bin/sh", ["git", "-c", "sleep 60", os.environ["EXECS"]])
time.sleep(60)
"""


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
@pytest.mark.parametrize(
    ("execs", "after", "fetching"),
    [("fetch", 0.2, True), ("merge", 0.2, False), ("fetch", 60, False)],
    ids=["its-fetch", "its-merge", "never-execs"],
)
def test_a_pull_s_child_in_its_exec_is_looked_at_again(
    execs: str, after: float, fetching: bool
) -> None:
    """A child of the pull forked, not yet exec'd (its command line the pull's) or in its
    exec (none), was taken for the pull's merge: nothing put back, the pull failed. It is
    looked at again until it runs its program, or until the wait ends."""
    env = {**os.environ, "EXECS": execs, "AFTER": str(after)}
    pull = subprocess.Popen([sys.executable, "-c", FORKS], env=env)
    children = Path(f"/proc/{pull.pid}/task/{pull.pid}/children")
    try:
        until = time.monotonic() + 30
        while not children.read_text().split() and time.monotonic() < until:
            time.sleep(0.01)
        began = time.monotonic()

        assert late_pull._fetching(str(pull.pid), wait=30 if after < 60 else 0.3) is fetching  # pyright: ignore[reportPrivateUsage]
        assert time.monotonic() - began < 30  # never the whole 60 s of a child that never execs
    finally:
        child = children.read_text().split()
        for pid in child:
            with contextlib.suppress(OSError):
                os.kill(int(pid), signal.SIGKILL)
        pull.kill()
        pull.wait()
