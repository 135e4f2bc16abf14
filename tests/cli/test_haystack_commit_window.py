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
from memidx.haystack import segment_commit
from tests.cli.test_late_merge import wait_for
from tests.helpers import GIT_IDENTITY, clean_env, started_memory

EDITOR = '#!/bin/sh\ntouch {started}; sleep {seconds}; echo "the person\'s message" > "$1"\n'
EDITING_S = 6


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="a commit under way is seen in /proc")
def test_a_commit_begun_under_the_lock_is_waited_for_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = started_memory(tmp_path)
    filed = repo.memidx_process("file-turn", stdin='{"text": "a fact filed before"}')
    assert filed.code == 0, filed.err
    started, editor = tmp_path / "started", tmp_path / "editor.sh"
    editor.write_text(EDITOR.format(started=started, seconds=EDITING_S))
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
    done: list[object] = []
    config = load_config(repo.root, env={})
    worker = threading.Thread(target=lambda: done.append(segment_commit.commit_haystack(config)))
    worker.start()
    try:
        wait_for("the person's editor", started.exists)
        time.sleep(1)  # the haystack commit finds the person's commit now
        began = time.monotonic()
        turn = repo.memidx_process("file-turn", stdin='{"text": "a fact filed meanwhile"}')
        took = time.monotonic() - began
    finally:
        worker.join(60)
        _, said = people[0].communicate(timeout=60)
    assert people[0].returncode == 0, said
    assert turn.code == 0 and "Traceback" not in turn.err, turn.err
    assert took < 3, took  # it waited for the lock the commit's wait held
    assert done and isinstance(done[0], str), done  # committed once the person's had
    subjects = repo.git("log", "--format=%s").splitlines()
    assert subjects[1:] == ["the person's message", "start"], subjects
    assert subjects[0].startswith("haystack: segments of ")
