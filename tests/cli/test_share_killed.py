"""`memidx share` killed, with every process of its group (a terminal closed, a `kill -9` of
the job), while it merges: the clone is as before the merge or after it, never half way.

git's own merge writes the merged files into the index and the work tree before it moves
HEAD (and runs pre-merge-commit in between): killed there, the other clone's notes stayed
staged as if the person had added them, `memidx status` called them uncommitted notes, and
every later share refused (`notes/theirs.md (staged)`). share's merge moves the branch and
brings the index and the work tree to it in a child process of its own session, which the
kill of share's group does not reach."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

from tests.helpers import MEMIDX_BIN, NotesRepo, clean_env
from tests.memories import diverged_clones

# Kills share's whole process group (its pid, in pid_file, leads it), once: at git merge's
# pre-merge-commit (the files merged, HEAD not moved), or the moment HEAD moves.
KILL = """#!/bin/sh
[ -e {killed} ] && exit 0
{when}
i=0; while [ ! -s {pid_file} ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
touch {killed}; kill -9 -$(cat {pid_file})
"""
AT_HEAD = '[ "$1" = committed ] && grep -q " HEAD$" || exit 0'


def killed_while_merging(two: NotesRepo) -> None:
    """Run `memidx share` in a session of its own and kill its group mid-merge; returns once
    it is dead and no git of the clone is at work any more (20 s at most)."""
    git_dir = two.root / ".git"
    pid_file, killed = git_dir / "memidx-test.pid", git_dir / "killed"
    for hook, when in (("pre-merge-commit", ""), ("reference-transaction", AT_HEAD)):
        (git_dir / "hooks" / hook).write_text(
            KILL.format(killed=killed, when=when, pid_file=pid_file)
        )
        (git_dir / "hooks" / hook).chmod(0o755)
    run = subprocess.Popen(
        [str(MEMIDX_BIN), "share"],
        cwd=two.root,
        env=clean_env(MEMIDX_ROOT=str(two.root)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    pid_file.write_text(str(run.pid))
    assert run.wait(timeout=60) == -signal.SIGKILL
    for hook in ("pre-merge-commit", "reference-transaction"):
        (git_dir / "hooks" / hook).unlink()
    deadline = time.monotonic() + 20
    while (git_dir / "index.lock").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)  # a git between two commands of the child, had it any left


def test_share_killed_mid_merge_leaves_the_merge_made_and_the_next_share_pushes_it(
    tmp_path: Path,
) -> None:
    one, two = diverged_clones(tmp_path)
    mine = two.git("rev-parse", "HEAD").strip()
    assert two.memidx_process("ingest").code == 0

    killed_while_merging(two)

    assert two.git("rev-parse", "HEAD^1", "HEAD^2").split() == [
        mine,
        two.git("rev-parse", "origin/main").strip(),
    ]
    assert two.git("status", "--porcelain=v1", "-uall", "--", "notes") == ""
    assert (two.root / "notes" / "theirs.md").exists()
    assert "uncommitted: none" in two.memidx_process("status").out  # the index: behind
    again = two.memidx_process("share")
    assert again.code == 0, again.err
    status = two.memidx_process("status")
    assert status.code == 0 and "in step" in status.out, status.out + status.err
    assert two.git("rev-parse", "HEAD").strip() == one.git("ls-remote", "origin", "main").split()[0]
