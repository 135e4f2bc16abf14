"""A `remember` in the second a person's `git pull --rebase` (or `git rebase`) runs: HEAD is
detached while it picks, and remember refused the note, exit 1, telling to `git rebase
--continue (or git rebase --abort)` a rebase that finishes by itself (23 of 30 remembers in a
loop against `git fetch && git rebase`); an agent that followed the hint aborted the person's
rebase. A rebase still running is waited for, as any other git of the clone is."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from memidx.errors import MemidxError
from tests.cli.test_late_merge import wait_for
from tests.helpers import NotesRepo, clean_env, started_memory

BODY = "The proxy dropped long requests, so uploads over a minute failed for everyone.\n"


def _rebasing(
    repo: NotesRepo, tmp_path: Path, seconds: float, *, then: str = "true"
) -> subprocess.Popen[bytes]:
    """A person's rebase of the last commit, running (not stopped) for `seconds` once picked,
    then running `then` (`false`: the rebase stops there, as on a conflict)."""
    repo.note("second.md", "Second", "a second note so that there is a commit to pick again")
    repo.commit("second")
    picked = tmp_path / "picked"
    step = f"touch {picked}; sleep {seconds}; {then}"
    argv = ["git", "rebase", "-q", "--force-rebase", "--exec", step, "HEAD~1"]
    person = subprocess.Popen(argv, cwd=repo.root, env=clean_env(), stderr=subprocess.PIPE)
    wait_for("the rebase to pick", picked.exists)
    return person


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_remember_during_a_running_rebase_waits_for_it(tmp_path: Path) -> None:
    repo = started_memory(tmp_path)
    person = _rebasing(repo, tmp_path, 2)
    try:
        run = repo.memidx_process("remember", "--title", "Proxy timeout", stdin=BODY)
    finally:
        _, err = person.communicate(timeout=60)
    assert person.returncode == 0, err
    assert run.code == 0 and "rebase" not in run.err, run.err
    subjects = repo.git("log", "--format=%s").splitlines()
    assert subjects == ["memidx remember: Proxy timeout", "second", "start"]
    assert repo.git("status", "--porcelain") == ""


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_rebase_running_past_the_wait_is_not_said_to_need_an_abort(tmp_path: Path) -> None:
    repo = started_memory(tmp_path)
    person = _rebasing(repo, tmp_path, 14)
    try:
        run = repo.memidx_process("remember", "--title", "Proxy timeout", stdin=BODY)
    finally:
        _, err = person.communicate(timeout=60)
    assert person.returncode == 0, err
    assert run.code == 1 and "Traceback" not in run.err, run.err
    assert "a rebase is under way (HEAD is detached), so the note was not written" in run.err
    assert "try again once that git command ends" in run.err and "--abort" not in run.err


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
def test_a_rebase_that_stops_during_the_wait_is_said_stopped_at_once(tmp_path: Path) -> None:
    """A rebase that stops for the person (a conflict, a failed --exec) while remember waits
    for it ends the wait then: no waiting ends it, so remember says at once that it is in
    progress and how to finish it, never the full wait and then `under way`."""
    repo = started_memory(tmp_path)
    person = _rebasing(repo, tmp_path, 1, then="false")
    try:
        started = time.monotonic()
        run = repo.memidx_process("remember", "--title", "Proxy timeout", stdin=BODY)
        took = time.monotonic() - started
    finally:
        person.communicate(timeout=60)
    assert person.returncode != 0  # stopped, its --exec failed
    assert run.code == 1 and "Traceback" not in run.err, run.err
    assert "a rebase is in progress (HEAD is detached), so the note was not written" in run.err
    assert "git rebase --continue" in run.err and "under way" not in run.err
    assert took < 6, took  # the rebase stopped after 1 s; the wait is 10 s
    assert not (repo.root / "notes" / "proxy-timeout.md").exists()
    subprocess.run(["git", "rebase", "--abort"], cwd=repo.root, env=clean_env(), check=True)


APPLYING = "#!/bin/sh\ntouch {picked}; sleep {seconds}\n"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="memidx sees gits in /proc")
@pytest.mark.parametrize(("seconds", "waited"), [(1, True), (14, False)])
def test_a_running_rebase_of_the_apply_backend_is_waited_for(
    tmp_path: Path, seconds: int, waited: bool
) -> None:
    """`git rebase --apply` (`git am` underneath) writes no head-name until it stops: a
    remember while it ran was told git left a rebase folder it cannot finish, to `rm -r
    .git/rebase-apply` and `git switch` (the person's rebase lost), at once, no wait."""
    repo = started_memory(tmp_path)
    repo.note("second.md", "Second", "a second note so that there is a commit to apply again")
    repo.commit("second")
    picked = tmp_path / "picked"
    hook = repo.root / ".git" / "hooks" / "applypatch-msg"
    hook.write_text(APPLYING.format(picked=picked, seconds=seconds))
    hook.chmod(0o755)
    argv = ["git", "rebase", "-q", "--apply", "--force-rebase", "HEAD~1"]
    person = subprocess.Popen(argv, cwd=repo.root, env=clean_env(), stderr=subprocess.PIPE)
    try:
        wait_for("the rebase to apply", picked.exists)
        run = repo.memidx_process("remember", "--title", "Proxy timeout", stdin=BODY)
    finally:
        _, err = person.communicate(timeout=60)
    assert person.returncode == 0, err
    assert "rm -r" not in run.err and "Traceback" not in run.err, run.err
    if waited:
        assert run.code == 0, run.err
        assert repo.git("log", "-1", "--format=%s") == "memidx remember: Proxy timeout\n"
    else:
        assert run.code == 1 and "a rebase is under way (HEAD is detached)" in run.err, run.err


def test_without_proc_a_running_apply_rebase_is_not_called_a_folder_git_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where gits cannot be seen (no /proc: macOS), a `git rebase --apply` running has no
    head-name yet, and remember said git left a folder it cannot finish, `rm -r` it first
    thing; README says a running rebase is said to be one, as a stopped one is."""
    from memidx.git import branch

    repo = started_memory(tmp_path)
    repo.note("second.md", "Second", "a second note so that there is a commit to apply again")
    repo.commit("second")
    picked = tmp_path / "picked"
    hook = repo.root / ".git" / "hooks" / "applypatch-msg"
    hook.write_text(APPLYING.format(picked=picked, seconds=3))
    hook.chmod(0o755)
    monkeypatch.setattr(branch, "PROC", tmp_path / "no-proc")

    def unseen(root: Path) -> bool:  # as branch._running is without /proc
        return False

    monkeypatch.setattr(branch, "_running", unseen)
    argv = ["git", "rebase", "-q", "--apply", "--force-rebase", "HEAD~1"]
    person = subprocess.Popen(argv, cwd=repo.root, env=clean_env(), stderr=subprocess.PIPE)
    try:
        wait_for("the rebase to apply", picked.exists)
        with pytest.raises(MemidxError) as refused:
            branch.on_a_branch(repo.root, "the note was not written", wait=branch.REBASE_WAIT)
    finally:
        _, err = person.communicate(timeout=60)
    assert person.returncode == 0, err
    said = f"{refused.value.message} ({refused.value.hint})"
    assert said.startswith("a rebase is under way or was killed (HEAD is detached"), said
    assert said.index("try again once that git command ends") < said.index("rm -r"), said
