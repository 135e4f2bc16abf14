"""HEAD put back for a person's `git pull` still in its fetch (memidx/git/late_pull.py), two ways
it went wrong:

- it was put back through HEAD's symbolic ref: a `git switch -c other` right after memidx's
  move had `other` put back (the person's new branch lost memidx's commit, its index and files
  taken back under it) and the branch memidx committed on left as it was. Now only the ref
  memidx moved is put back, checked against the commit it wrote; the index and the files
  only while HEAD still names it;
- memidx killed between the ref's update and git's index reset left the note staged on the
  HEAD put back (`git status`: `A notes/...`, for the person's next commit). Both now run in
  one child process of its own session, which finishes alone."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memidx.config import load_config
from memidx.errors import GitBusy
from memidx.git import commit as commit_module
from memidx.git import late_pull
from memidx.git.commit import commit_paths
from tests.helpers import clean_env, started_memory

REF = "notes/new-lesson.md"
NOTE = b"---\ntitle: New lesson\n---\n\nThe cache broke when the disk filled.\n"


def _a_pull(_root: Path) -> dict[str, str]:
    """committers' answer: one person's `git pull`, still in its fetch."""
    return {"4242": "pull 1"}


def test_a_switch_after_the_move_is_not_put_back_for_the_pull(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = started_memory(tmp_path)
    old = repo.git("rev-parse", "HEAD").strip()
    switched: list[str] = []

    def late(root: Path) -> dict[str, str]:  # the look after the move: the person switched
        if not switched:
            switched.append(repo.git("switch", "-q", "-c", "other"))
        return _a_pull(root)

    monkeypatch.setattr(commit_module, "committers", late)
    monkeypatch.setattr(late_pull, "committers", _a_pull)
    monkeypatch.setattr(late_pull, "_pulls_alone", list)  # each pid a pull still fetching

    with pytest.raises(GitBusy, match="put main back"):
        commit_paths(load_config(repo.root, env={}), [REF], "memidx remember: New lesson",
                     written={REF: NOTE})  # fmt: skip

    monkeypatch.undo()
    commit = repo.git("rev-parse", "other").strip()
    assert commit != old and repo.git("rev-parse", "other^1").strip() == old  # was: put back
    assert repo.git("rev-parse", "main").strip() == old  # the branch memidx committed on
    assert repo.git("symbolic-ref", "HEAD").strip() == "refs/heads/other"
    assert repo.git("status", "--porcelain=v1", "-uall").strip() == ""  # other's, untouched
    assert (repo.root / REF).read_bytes() == NOTE


# memidx put back for a pull, killed (SIGKILL) the moment its update-ref of the branch commits
KILLED = """
import os, sys
from pathlib import Path
from memidx.git import late_pull
root, commit, ref = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
late_pull._pulls_alone = list
late_pull.committers = lambda root: {"4242": "pull 1"}
(root / ".git" / "memidx-test.pid").write_text(str(os.getpid()))
late_pull.put_back_for_a_pull(
    root, {"4242": "pull 1"}, commit, [ref], written={ref: Path(root, ref).read_bytes()},
    literal=[f":(literal){ref}"], ref="refs/heads/main",
)
"""
HOOK = """#!/bin/sh
[ "$1" = committed ] && grep -q "^{commit} {old} refs/heads/main$" || exit 0
kill -9 $(cat {pid_file})
"""


@pytest.mark.skipif(sys.platform == "win32", reason="a child of its own session: POSIX")
def test_killed_between_the_put_back_and_the_index_reset_leaves_no_note_staged(
    tmp_path: Path,
) -> None:
    repo = started_memory(tmp_path)
    old = repo.git("rev-parse", "HEAD").strip()
    (repo.root / REF).write_bytes(NOTE)
    commit = repo.commit("memidx remember: New lesson")  # memidx's move, as committed
    git_dir = repo.root / ".git"
    hook = git_dir / "hooks" / "reference-transaction"
    hook.write_text(HOOK.format(commit=commit, old=old, pid_file=git_dir / "memidx-test.pid"))
    hook.chmod(0o755)

    run = subprocess.run([sys.executable, "-c", KILLED, str(repo.root), commit, REF],
                         cwd=repo.root, env=clean_env(), check=False, timeout=60)  # fmt: skip

    assert run.returncode == -signal.SIGKILL
    hook.unlink()
    assert repo.git("rev-parse", "HEAD").strip() == old  # put back, then killed
    staged = "?"
    for _ in range(200):  # the child of its own session finishes alone (10 s at most)
        staged = repo.git("diff", "--cached", "--name-only").strip()
        if not staged and not (git_dir / "index.lock").exists():
            break
        time.sleep(0.05)
    assert staged == "", staged  # was: notes/new-lesson.md staged on the HEAD put back
    assert (repo.root / REF).exists()  # the note's file stays (its entry commits it)
