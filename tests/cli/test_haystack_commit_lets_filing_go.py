"""`memidx haystack commit` (and `memidx share`, which runs it) behind a person's `git commit`
in its editor: it waited up to 10 s for that commit holding the haystack writer's lock, so an
agent's Stop hook filing a turn meanwhile waited as long (a `memidx file-turn` took 9.7 s),
past the hook's 10 s deadline. The wait for the person's git is made before the lock is taken.
Told by what the commands do, not by the filing's time: the filing ends while the haystack
commit still waits, and that commit's wait is made long (it is not what is tested), so that it
outlasts the filing on any load; a bound of twice a filing alone and 5 s could not fail once a
filing alone took over 5 s, as one held by the commit's wait took a filing alone and 10 s."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_late_merge import wait_for
from tests.helpers import GIT_IDENTITY, clean_env, started_memory

# the person writes their message until the test lets them end (60 s at most), not for a set
# time: under load memidx's own work outlasted a fixed one, and a long one only slowed the suite
EDITOR = (
    "#!/bin/sh\ntouch {started}; i=0\n"
    "while [ ! -e {released} ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done\n"
    'echo "the person\'s message" > "$1"\n'
)
# `memidx haystack commit`, its wait for git (WAIT_SECONDS, 10 s) longer than the person's
# editor waits for the test: a filing slower than 10 s under load outlasted it
HAYSTACK_COMMIT = """\
from memidx.git import commit
commit.WAIT_SECONDS = 120.0
from memidx.cli.main import main
raise SystemExit(main(["haystack", "commit"]))
"""


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="a commit under way is seen in /proc")
def test_a_turn_is_filed_while_a_haystack_commit_waits_for_a_persons_commit(
    tmp_path: Path,
) -> None:
    repo = started_memory(tmp_path)
    filed = repo.memidx_process("file-turn", stdin='{"text": "a fact filed before"}')
    assert filed.code == 0, filed.err
    started, editor, trace = tmp_path / "started", tmp_path / "editor.sh", tmp_path / "trace"
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
            traced = clean_env(MEMIDX_ROOT=str(repo.root), PATH=_traced(tmp_path, trace))
            committing = subprocess.Popen(
                [sys.executable, "-c", HAYSTACK_COMMIT], cwd=repo.root, stdout=pipe,
                stderr=pipe, env=traced, text=True,
            )  # fmt: skip
            # it waits for the person's commit once it has found git's folder (its last git
            # but a status before that wait), not after a set time: a filing before it began
            # waiting (its imports outlasted 1 s under load) tested nothing
            wait_for("the haystack commit's look", lambda: "--absolute-git-dir" in _read(trace), 60)
            turn = repo.memidx_process("file-turn", stdin='{"text": "a fact filed meanwhile"}')
            waiting = committing.poll() is None  # still waiting for the person's commit
            released.touch()
            out, err = committing.communicate(timeout=60)
        finally:
            released.touch()
            _, said = person.communicate(timeout=60)
    assert person.returncode == 0, said
    assert turn.code == 0 and "Traceback" not in turn.err, turn.err
    assert waiting, "the haystack commit ended before the filing did"  # its wait held it
    assert committing.returncode == 0 and "committed" in out, err  # once the person's ended
    subjects = repo.git("log", "--format=%s").splitlines()
    assert subjects[1:] == ["the person's message", "start"], subjects
    assert subjects[0].startswith("haystack: segments of ")


def _traced(tmp_path: Path, trace: Path) -> str:
    """A PATH whose git writes each command it runs to `trace`, then runs it."""
    folder = tmp_path / "traced"
    folder.mkdir()
    (folder / "git").write_text(
        f'#!/bin/sh\necho "$*" >> {trace}\nexec {shutil.which("git")} "$@"\n'
    )
    (folder / "git").chmod(0o755)
    return f"{folder}{os.pathsep}{os.environ['PATH']}"


def _read(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""
