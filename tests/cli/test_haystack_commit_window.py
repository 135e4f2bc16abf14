"""A person's `git commit` that starts after `memidx haystack commit` waited for gits (before
taking haystack.lock) and before its commit: the commit waited for it holding the lock, up to
what was left of the 10 s, so an agent's filing meanwhile waited as long (6.2 s here). The
commit under the lock waits for no git: found busy, it lets go of the lock, waits, tries again."""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from memidx.config import load_config
from memidx.git import commit as git_commit
from memidx.haystack import segment_commit
from tests.cli.test_late_merge import wait_for
from tests.helpers import GIT_IDENTITY, clean_env, started_memory

# the person writes their message until the test lets them end (60 s at most), not for a set
# time: under load memidx's own work outlasted a fixed one, and a long one only slowed the suite
EDITOR = (
    "#!/bin/sh\ntouch {started}; i=0\n"
    "while [ ! -e {released} ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done\n"
    'echo "the person\'s message" > "$1"\n'
)

LONG_WAIT = 60.0  # seconds the haystack commit may wait for the person's git here


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="a commit under way is seen in /proc")
def test_a_commit_begun_under_the_lock_is_waited_for_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Told by what the commands did, not by the filing's time: the filing ends while the
    haystack commit still waits for the person's (a bound of twice a filing alone and 5 s
    could not fail once a filing alone took over 5 s)."""
    repo = started_memory(tmp_path)
    filed = repo.memidx_process("file-turn", stdin='{"text": "a fact filed before"}')
    assert filed.code == 0, filed.err
    started, editor = tmp_path / "started", tmp_path / "editor.sh"
    released = tmp_path / "released"
    editor.write_text(EDITOR.format(started=started, released=released))
    editor.chmod(0o755)
    repo.write("notes/mine.md", "# Mine\n\nThe person's own note, staged for their commit.\n")
    repo.git("add", "notes/mine.md")
    env = {**clean_env(), "GIT_EDITOR": str(editor)}
    argv = ["git", *GIT_IDENTITY, "commit", "-q"]
    people: list[subprocess.Popen[bytes]] = []
    dropping = segment_commit.drop_empty_folders

    def person_begins(*args: Any) -> None:  # under the lock, after the wait before it
        if not people:
            people.append(subprocess.Popen(argv, cwd=repo.root, env=env, stderr=subprocess.PIPE))
            wait_for("the person's editor", started.exists)
        dropping(*args)

    monkeypatch.setattr(segment_commit, "drop_empty_folders", person_begins)
    # the commit's whole wait (in this process) made long, past the filing on any load: one
    # that waited under the lock held the filing until it ended; the person's commit ends once
    # the filing has
    monkeypatch.setattr(git_commit, "WAIT_SECONDS", LONG_WAIT)
    done: list[object] = []
    config = load_config(repo.root, env={})
    worker = threading.Thread(target=lambda: done.append(segment_commit.commit_haystack(config)))
    worker.start()
    try:
        wait_for("the person's editor", started.exists)
        time.sleep(1)  # the haystack commit finds the person's commit now
        turn = repo.memidx_process("file-turn", stdin='{"text": "a fact filed meanwhile"}')
        waiting = worker.is_alive()  # still waiting for the person's commit
    finally:
        released.touch()
        worker.join(60)
        _, said = people[0].communicate(timeout=60)
    assert people[0].returncode == 0, said
    assert turn.code == 0 and "Traceback" not in turn.err, turn.err
    assert waiting, "the haystack commit ended before the filing did"  # its wait held it
    assert done and isinstance(done[0], str), done  # committed once the person's had
    subjects = repo.git("log", "--format=%s").splitlines()
    assert subjects[1:] == ["the person's message", "start"], subjects
    assert subjects[0].startswith("haystack: segments of ")


def test_a_git_holding_the_index_after_the_move_is_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commit under the lock waits for no git before its move, but its commit landed: a
    git holding the index right after it (an editor's `git status` refreshing it) failed the
    haystack commit at once (`committed ..., but git's index stayed locked`), exit 1 and the
    segments shown as staged; it is waited for, as every commit's index update is."""
    from memidx.git import commit, index_follow

    repo = started_memory(tmp_path)
    filed = repo.memidx_process("file-turn", stdin='{"text": "a fact filed before"}')
    assert filed.code == 0, filed.err
    lock = repo.root / ".git" / "index.lock"
    telling = commit.update_user_index
    held: list[threading.Timer] = []

    def held_at_the_index_update(*args: Any, **kwargs: Any) -> None:
        if not held:  # a git takes the index lock as memidx tells the index, for 1 s
            lock.touch()
            held.append(threading.Timer(1.0, lambda: lock.unlink(missing_ok=True)))
            held[0].start()
        telling(*args, **kwargs)

    def not_told(*args: Any) -> bool:
        return False  # the move's own follow did not tell git's index (no POSIX shell there)

    monkeypatch.setattr(commit, "update_user_index", held_at_the_index_update)
    # since wt-straddle a follow that told the index skips this update: without this the
    # update (this test's seam) never ran, and the test failed
    monkeypatch.setattr(index_follow, "_told", not_told)
    try:
        made = segment_commit.commit_haystack(load_config(repo.root, env={}))
    finally:
        for timer in held:
            timer.join(5)
    assert held and isinstance(made, str), made
    assert repo.git("status", "--porcelain") == ""


def test_a_commit_landed_before_a_late_git_failed_it_is_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A git that started at the commit's move and still ran past LATE_FLOOR (StillUnderWay,
    after HEAD took the segments) made the commit under the lock let go and try again: the
    next try found nothing to commit, and `haystack commit` said `nothing to commit in the
    haystack`, the commit made and the index never told of it."""
    from memidx.git import commit
    from memidx.git.late import StillUnderWay

    repo = started_memory(tmp_path)
    filed = repo.memidx_process("file-turn", stdin='{"text": "a fact filed before"}')
    assert filed.code == 0, filed.err
    before = repo.git("rev-parse", "HEAD").strip()
    late: list[str] = []

    def a_late_git(*args: Any) -> dict[str, str]:
        late.append("git commit")
        return {"1": "commit"} if len(late) == 1 else {}

    def still_under_way(*args: Any) -> None:
        raise StillUnderWay("a git commit that started with memidx's commit is still under way")

    monkeypatch.setattr(commit, "committers", a_late_git)
    monkeypatch.setattr(commit, "settle", still_under_way)
    made = segment_commit.commit_haystack(load_config(repo.root, env={}))
    assert late and made == repo.git("rev-parse", "HEAD").strip() != before, made
    assert repo.git("log", "-1", "--format=%s").startswith("haystack: segments of ")
