"""The branch HEAD names, as memidx looks at it while git holds HEAD's lock: a reftable
clone's HEAD file is a stub for older gits (`ref: refs/heads/.invalid`, git >= 2.45 with
`--ref-format=reftable`), and with core.preferSymlinkRefs HEAD is a link to the branch's file
(read through, a commit id): taken as read, every commit memidx made there was refused as if
the person had switched branch, and no remember was ever committed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memidx.git.head_name import REFTABLE_STUB, head_names

COMMIT = "a" * 40
# the git a reftable clone answers with (this machine's may predate reftable)
TABLE_GIT = '#!/bin/sh\ncase "$*" in *symbolic-ref*) echo refs/heads/main ;; esac\n'


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        ("ref: refs/heads/main\n", "refs/heads/main"),
        ("ref: refs/heads/side", "refs/heads/side"),
        (COMMIT + "\n", None),  # detached
    ],
)
def test_head_s_file_names_its_branch(tmp_path: Path, head: str, expected: str | None) -> None:
    (tmp_path / "HEAD").write_text(head)
    assert head_names(tmp_path) == expected


def test_a_reftable_clone_s_branch_is_asked_of_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "HEAD").write_text(f"ref: {REFTABLE_STUB}\n")
    (tmp_path / "reftable").mkdir()
    (tmp_path / "reftable" / "tables.list").write_text("")
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "git").write_text(TABLE_GIT)
    (shim / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")
    assert head_names(tmp_path) == "refs/heads/main"


def _identity() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid")
    env.update(GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    return env


def _remembered(root: Path, env: dict[str, str]) -> None:
    """A real `memidx remember` in `root` committed its note on HEAD's branch."""
    said = subprocess.run(
        [sys.executable, "-m", "memidx", "-C", str(root), "remember", "--title", "Odd HEAD note"],
        cwd=root.parent, env=env, input="A body.\n", capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert said.returncode == 0 and "not committed" not in said.stderr, said.stderr
    shown = subprocess.run(["git", "log", "-1", "--format=%s"], cwd=root, env=env,
                           capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert shown == "memidx remember: Odd HEAD note\n"


def test_a_remember_where_head_is_a_link_is_committed(tmp_path: Path) -> None:
    env, root = _identity(), tmp_path / "clone"
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], env=env, check=True)
    for argv in (
        ["commit", "-q", "--allow-empty", "-m", "first"],
        ["config", "core.preferSymlinkRefs", "true"],
        ["switch", "-q", "-c", "side"],
    ):
        subprocess.run(["git", *argv], cwd=root, env=env, check=True)  # fmt: skip
    assert (root / ".git" / "HEAD").is_symlink()  # as git < 3 still makes it with that setting
    assert head_names(root / ".git") == "refs/heads/side"
    _remembered(root, env)


def test_a_remember_in_a_real_reftable_clone_is_committed(tmp_path: Path) -> None:
    """End to end where this machine's git makes reftable clones (git >= 2.45)."""
    env, root = _identity(), tmp_path / "clone"
    made = subprocess.run(
        ["git", "init", "-q", "-b", "main", "--ref-format=reftable", str(root)],
        env=env, capture_output=True, check=False,
    )  # fmt: skip
    if made.returncode != 0:
        pytest.skip("this git makes no reftable clone (git >= 2.45 does)")
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "first"], cwd=root, env=env,
                   check=True)  # fmt: skip
    _remembered(root, env)
