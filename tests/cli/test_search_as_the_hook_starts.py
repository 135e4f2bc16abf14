"""The moment after a person's `git commit`, before memidx's post-commit hook has started
Python and taken its lock (`following`, ~100 ms): a search said the index is behind, "run
`memidx sync`". The hook's shell marks that it started memidx (`.memidx/following/hook-<pid>
.pid`, hooks/memidx-hook), and a search then says the index is being brought up to date."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from memidx.config import load_config
from memidx.index.following import followed_now
from tests.conftest import PROJECT
from tests.helpers import NotesRepo, clean_env, dead_pid

# a stand-in for Python that records what a search would say when it starts: the hook's start
SEARCH_AT_START = """#!/bin/sh
cd "$MEMIDX_ROOT_UNDER_TEST" && "$REAL_PYTHON" -m memidx search --json --mode bm25 lesson \\
  > "$SAID" 2>&1
exit 0
"""


def behind(repo: NotesRepo) -> None:
    """A memory indexed at one commit, then a commit no hook followed yet."""
    repo.note("one.md", "One", "a lesson learned")
    repo.commit("one")
    assert repo.memidx("ingest").code == 0
    repo.note("two.md", "Two", "another lesson learned")
    repo.commit("two")


def test_a_search_as_the_post_commit_hook_starts_says_the_index_follows(
    repo: NotesRepo, tmp_path: Path
) -> None:
    behind(repo)
    shutil.copytree(PROJECT / "hooks", repo.root / "hooks")
    python = tmp_path / "python"
    python.write_text(SEARCH_AT_START)
    python.chmod(0o755)
    said = tmp_path / "said"
    env = clean_env(
        MEMIDX_PYTHON=str(python), MEMIDX_ROOT_UNDER_TEST=str(repo.root),
        REAL_PYTHON=sys.executable, SAID=str(said),
    )  # fmt: skip

    done = subprocess.run(
        ["sh", "hooks/memidx-hook", "hook", "post-commit"], cwd=repo.root, env=env,
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    assert "is bringing the index to it now" in said.read_text(), said.read_text()
    assert list((repo.root / ".memidx" / "following").iterdir()) == []  # removed at its end


def test_a_killed_hook_s_mark_is_no_follow(repo: NotesRepo) -> None:
    behind(repo)
    config = load_config(repo.root)
    mark = config.state_dir / "following" / f"hook-{dead_pid()}.pid"
    mark.parent.mkdir(parents=True, exist_ok=True)
    mark.touch()

    assert not followed_now(config)
    assert not mark.exists()


def test_a_killed_hook_s_pid_given_to_another_process_is_no_follow(repo: NotesRepo) -> None:
    """A hook shell killed (Ctrl-C in its post-commit) leaves its mark; with pid_max 32768 its
    pid is soon another process's, and a search said the index "is being brought" to HEAD for
    10 minutes while nothing brought it. The mark holds when its shell started."""
    behind(repo)
    config = load_config(repo.root)
    other = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        started = Path(f"/proc/{other.pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
        mark = config.state_dir / "following" / f"hook-{other.pid}.pid"
        mark.parent.mkdir(parents=True, exist_ok=True)
        mark.write_text(f"{started}\n")
        assert followed_now(config)  # the shell that wrote it: believed

        mark.write_text(f"{int(started) - 1}\n")  # a shell that started before it: killed
        assert not followed_now(config)
        assert not mark.exists()
    finally:
        other.kill()
        other.wait()


def test_a_mark_the_hook_could_not_write_is_left_nowhere_and_said_by_no_shell_error(
    repo: NotesRepo, tmp_path: Path
) -> None:
    """A full disk (here the file size limit: the mark's file made, its write refused): the
    hook went on (fails open) but left its empty mark behind, read as a running hook's while
    another process had its pid; a mark it could not make printed the shell's own error
    (`cannot create ...`) at every commit, its `2>/dev/null` applied after the failing `>`."""
    behind(repo)
    shutil.copytree(PROJECT / "hooks", repo.root / "hooks")
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\nexit 0\n")  # memidx itself: not what is looked at here
    python.chmod(0o755)
    env = clean_env(MEMIDX_PYTHON=str(python))
    script = "trap '' XFSZ; ulimit -f 0; exec sh hooks/memidx-hook hook post-commit"

    done = subprocess.run(
        ["sh", "-c", script], cwd=repo.root, env=env,
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip

    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert list((repo.root / ".memidx" / "following").iterdir()) == []
