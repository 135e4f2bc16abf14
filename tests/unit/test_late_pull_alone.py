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
