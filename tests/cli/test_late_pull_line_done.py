"""When a late pull's line (`git pull:` in `memidx status`, memidx.git.late_pull) is done with
without a merge's or rebase's hook: a pull again that finds nothing to merge ("Already up to
date") runs none, and the line stayed until the next merge, its failure long resolved. The
line says what the pull pulled (memidx.git.late_pull_line); status drops it, and its trace,
once that pull ended and the branch it pulled into holds that, which the branch lacked as the
pull read it. Right after the failed pull (its fetch moved the upstream, the branch does not
hold it) the line stays; so does one whose pull had nothing new to merge. These clones run no
memidx hook: only status can drop it."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.git import late_pull, late_pull_line
from memidx.index.failures import pull_trace
from memidx.process_start import running_since
from tests.cli.test_forget import clones
from tests.helpers import NotesRepo

REF = "notes/new-lesson.md"
WHY = "its ref's lock held for over 1 s, or HEAD moved since"


@pytest.fixture
def pull() -> Iterator[subprocess.Popen[bytes]]:
    """A process that stands for the person's `git pull` while it runs (its pid and start)."""
    process = subprocess.Popen(["sleep", "120"])
    try:
        yield process
    finally:
        process.kill()
        process.wait()


def _said(
    repo: NotesRepo, pid: int, start: str, ref: str = "refs/heads/main", old: str = ""
) -> Path:
    """The line memidx says of pull `pid` it could not put HEAD back for, into `ref`, which
    was at `old` (HEAD's now, by default) as the pull read it; its trace."""
    config = load_config(repo.root, env={})
    old = old or repo.git("rev-parse", "HEAD").strip()
    late_pull_line.say_unhelped(repo.root, (str(pid), f"pull {start}"), [REF], WHY, ref=ref,
                                old=old, unhelped=pull_trace(config))  # fmt: skip
    return config.pull_error_path


def _line(repo: NotesRepo) -> str:
    """The `git pull:` row of `memidx status`, "" when none; --json's pull_failure agrees."""
    out = repo.memidx_process("status").out
    row = next((line for line in out.splitlines() if line.startswith("git pull:")), "")
    data = json.loads(repo.memidx_process("status", "--json").out)
    assert (data["pull_failure"] is None) == (row == ""), (row, data["pull_failure"])
    return row


def _ended(process: subprocess.Popen[bytes]) -> None:
    process.kill()
    process.wait()


def _started(process: subprocess.Popen[bytes]) -> str:
    start = running_since(str(process.pid))
    assert start, "the stand-in pull is not running"
    return start


@pytest.fixture
def pair(tmp_path: Path) -> tuple[NotesRepo, NotesRepo]:
    one, two = clones(tmp_path)
    assert one.memidx("ingest").code == 0
    return one, two


def _pushed(two: NotesRepo) -> None:
    two.git("pull", "-q", "--no-rebase")
    two.note("theirs.md", "Theirs", "a note from the other machine")
    two.commit("theirs")
    two.git("push", "-q", "origin", "main")


@pytest.mark.parametrize("how", ["merge", "rebase", "detached"])
def test_the_line_stays_after_the_failed_pull_and_goes_once_pulled(
    pair: tuple[NotesRepo, NotesRepo], pull: subprocess.Popen[bytes], how: str
) -> None:
    one, two = pair
    _pushed(two)
    detached = how == "detached"
    if detached:
        one.git("checkout", "-q", "--detach")
    trace = _said(one, pull.pid, _started(pull), "HEAD" if detached else "refs/heads/main")
    assert "git pull:" in _line(one), "said while the pull runs"
    one.git("fetch", "-q", "origin", "main")  # the pull's fetch, then it failed
    _ended(pull)

    assert "git pull:" in _line(one), "right after the failed pull: still to pull again"
    assert trace.exists()

    args = ["origin", "main"] if detached else []
    one.git("pull", "-q", "--rebase" if how == "rebase" else "--no-rebase", *args)

    assert _line(one) == ""
    assert not trace.exists()


def test_an_up_to_date_pull_again_leaves_no_line_of_a_pull_that_had_something_to_merge(
    pair: tuple[NotesRepo, NotesRepo], pull: subprocess.Popen[bytes]
) -> None:
    """The failed pull had something to merge, merged since by other means (no hook here):
    pulled again, "Already up to date", no hook runs; the branch holds what it lacked."""
    one, two = pair
    _pushed(two)
    trace = _said(one, pull.pid, _started(pull))
    one.git("fetch", "-q", "origin", "main")
    _ended(pull)
    one.git("merge", "-q", "--no-edit", "origin/main")

    said = one.git("pull", "--no-rebase")

    assert "Already up to date" in said
    assert _line(one) == ""
    assert not trace.exists()


def test_the_line_of_a_pull_that_had_nothing_new_to_merge_stays_until_a_merge(
    pair: tuple[NotesRepo, NotesRepo], pull: subprocess.Popen[bytes]
) -> None:
    """Its branch held what it pulled as it read it (its fetch brought nothing; git's
    fast-forward failed on memidx's files): that says nothing of the failure, whose warning
    was dropped at the first status. A pull again, "Already up to date", runs no hook: the
    line stays until a merge's or rebase's hook clears it."""
    one, _ = pair
    trace = _said(one, pull.pid, _started(pull))
    _ended(pull)

    said = one.git("pull", "--no-rebase")

    assert "Already up to date" in said
    assert "git pull:" in _line(one)
    assert "git pull:" in _line(one), "a second status keeps it"
    assert trace.exists()


def test_a_line_of_an_older_memidx_without_its_old_commit_stays(
    pair: tuple[NotesRepo, NotesRepo],
) -> None:
    """Its pull's branch before the move is not known: whether it had anything new to merge
    is not either; the safe side is to keep the line."""
    one, two = pair
    _pushed(two)
    one.git("pull", "-q", "--no-rebase")  # main holds origin/main
    config = load_config(one.root, env={})
    config.pull_error_path.parent.mkdir(parents=True, exist_ok=True)
    config.pull_error_path.write_text(
        "2026-01-01T00:01:00+00:00\tgit pull\tan older memidx's line\t"
        "refs/heads/main refs/remotes/origin/main 4000000:1\n",
        encoding="utf-8",
    )

    assert "older memidx" in _line(one)
    assert config.pull_error_path.exists()


def test_a_branch_switched_to_that_holds_the_pull_keeps_the_line_of_the_branch_that_does_not(
    pair: tuple[NotesRepo, NotesRepo], pull: subprocess.Popen[bytes]
) -> None:
    """The line is about the branch the pull pulled into, not whatever HEAD names since."""
    one, two = pair
    _pushed(two)
    _said(one, pull.pid, _started(pull))
    one.git("fetch", "-q")
    _ended(pull)

    one.git("switch", "-q", "-c", "side", "origin/main")  # holds it; main does not

    assert "git pull:" in _line(one)


def test_a_line_whose_pull_still_runs_stays(
    pair: tuple[NotesRepo, NotesRepo], pull: subprocess.Popen[bytes]
) -> None:
    """Its fetch has not moved the upstream yet: the branch holds the old one."""
    one, _ = pair
    _said(one, pull.pid, _started(pull))

    assert "git pull:" in _line(one)


def test_no_line_for_a_pull_that_ended_with_its_branch_holding_what_it_pulled(
    pair: tuple[NotesRepo, NotesRepo],
) -> None:
    """Written after the put-back's 1 s wait, the line described a pull that had since
    merged (a pull again), or one that had nothing to merge and went through."""
    one, two = pair
    _pushed(two)
    old = one.git("rev-parse", "HEAD").strip()
    one.git("pull", "-q", "--no-rebase")  # merged before memidx's word

    trace = _said(one, 4242, "1", old=old)  # that pull ended

    assert not trace.exists()


def test_a_line_for_a_pull_that_ended_having_had_nothing_new_to_merge(
    pair: tuple[NotesRepo, NotesRepo],
) -> None:
    """Its branch held what it pulled as it read it: the failure git advised `git reset
    --hard` for, with nothing merged since; the line is written all the same."""
    one, _ = pair
    one.git("fetch", "-q", "origin")

    trace = _said(one, 4242, "1")  # that pull ended

    assert trace.exists()
    assert "git pull:" in _line(one)


def _none_running(_root: Path) -> dict[str, str]:
    """committers' answer when the pull ended since the look (and no git runs)."""
    return {}


def test_a_pull_that_ended_before_the_put_back_is_said_to_have_ended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(late_pull, "committers", _none_running)

    assert late_pull._in_the_way(tmp_path, "4242") == "it ended before HEAD could be put back"  # pyright: ignore[reportPrivateUsage]
