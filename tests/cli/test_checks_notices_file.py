"""The notices file memidx's pre-commit shim shows after the checks (MEMIDX_CHECK_NOTICES),
named by the shim's process id: a file a killed commit left there is never shown for another."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.helpers import NotesRepo, clean_env

PROJECT = Path(__file__).resolve().parents[2]
QUIET = """repos:
  - repo: local
    hooks:
      - id: quiet
        name: a check that says nothing
        entry: "true"
        language: system
        pass_filenames: false
        always_run: true
        stages: [pre-commit]
"""
# a commit killed (SIGKILL: no trap ran) left its index copy and its notices behind, under the
# process id that this shell hands on to the shim (exec), as the system hands out a freed one
KILLED = (
    "cp .git/index .git/memidx-checks-$$.index && "
    "echo 'memidx: a line of the killed commit' > .git/memidx-checks-$$.notices && "
    "exec sh hooks/memidx-hook pre-commit"
)


def test_a_killed_commits_notices_are_not_shown_for_a_commit_given_its_pid(
    tmp_path: Path,
) -> None:
    """The shim cleared a killed run's files only when their process was gone: its own id
    given back by the system kept them, and the killed commit's lines were shown as its own."""
    repo = NotesRepo(tmp_path / "memory")
    shutil.copytree(PROJECT / "hooks", repo.root / "hooks")
    (repo.root / ".pre-commit-config.yaml").write_text(QUIET)
    repo.git("add", "-A")

    done = subprocess.run(
        ["sh", "-c", KILLED],
        cwd=repo.root,
        env=clean_env(MEMIDX_PYTHON=sys.executable, PRE_COMMIT_HOME=str(tmp_path / "pc")),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )

    assert done.returncode == 0, done
    assert "killed commit" not in done.stderr, done.stderr
    assert not list((repo.root / ".git").glob("memidx-checks-*"))
