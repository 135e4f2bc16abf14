"""`memidx haystack commit` (and `memidx share`, which runs it) behind a person's `git commit`
in its editor: it waited up to 10 s for that commit holding the haystack writer's lock, so an
agent's Stop hook filing a turn meanwhile waited as long (a `memidx file-turn` took 9.7 s),
past the hook's 10 s deadline. The wait for the person's git is made before the lock is taken."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from tests.alone import at_once
from tests.cli.test_late_merge import wait_for
from tests.helpers import GIT_IDENTITY, MEMIDX_BIN, clean_env, started_memory

# the person writes their message until the test lets them end (60 s at most), not for a set
# time: under load memidx's own work outlasted a fixed one, and a long one only slowed the suite
EDITOR = (
    "#!/bin/sh\ntouch {started}; i=0\n"
    "while [ ! -e {released} ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done\n"
    'echo "the person\'s message" > "$1"\n'
)


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="a commit under way is seen in /proc")
def test_a_turn_is_filed_while_a_haystack_commit_waits_for_a_persons_commit(
    tmp_path: Path,
) -> None:
    repo = started_memory(tmp_path)
    alone = time.monotonic()  # a filing with nothing to wait for, timed on this machine now
    filed = repo.memidx_process("file-turn", stdin='{"text": "a fact filed before"}')
    alone = time.monotonic() - alone
    assert filed.code == 0, filed.err
    started, editor = tmp_path / "started", tmp_path / "editor.sh"
    released = tmp_path / "released"
    editor.write_text(EDITOR.format(started=started, released=released))
    editor.chmod(0o755)
    repo.write("notes/mine.md", "# Mine\n\nThe person's own note, staged for their commit.\n")
    repo.git("add", "notes/mine.md")
    env = {**clean_env(), "GIT_EDITOR": str(editor)}
    pipe = subprocess.PIPE
    argv = ["git", *GIT_IDENTITY, "commit", "-q"]
    with subprocess.Popen(argv, cwd=repo.root, env=env, stdout=pipe, stderr=pipe) as person:
        try:
            wait_for("the person's editor", started.exists)
            committing = subprocess.Popen(
                [str(MEMIDX_BIN), "haystack", "commit"], cwd=repo.root, stdout=pipe,
                stderr=pipe, env=clean_env(MEMIDX_ROOT=str(repo.root)), text=True,
            )  # fmt: skip
            time.sleep(1)  # it waits for the person's commit now
            began = time.monotonic()
            turn = repo.memidx_process("file-turn", stdin='{"text": "a fact filed meanwhile"}')
            took = time.monotonic() - began
            released.touch()
            out, err = committing.communicate(timeout=60)
        finally:
            released.touch()
            _, said = person.communicate(timeout=60)
    assert person.returncode == 0, said
    assert turn.code == 0 and "Traceback" not in turn.err, turn.err
    assert took < at_once(alone), (took, alone)  # the haystack commit's wait (10 s) held it
    assert committing.returncode == 0 and "committed" in out, err  # once the person's ended
    subjects = repo.git("log", "--format=%s").splitlines()
    assert subjects[1:] == ["the person's message", "start"], subjects
    assert subjects[0].startswith("haystack: segments of ")
