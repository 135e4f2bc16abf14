"""The reference-transaction shim's shell alone, under /bin/sh: git runs it for every ref
transaction of the user's repository, so it must stay quick and start memidx only for a HEAD
move no other hook follows."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from memidx.githooks.shims import shim

OID = "a" * 40
NULL = "0" * 40


def repo_with_shim(tmp_path: Path, reflog: str) -> tuple[Path, Path]:
    """A folder laid out as git's work tree: the shim, a memidx-hook that logs its runs."""
    (tmp_path / ".git" / "logs").mkdir(parents=True)
    (tmp_path / ".git" / "HEAD").write_text(f"{OID}\n")
    (tmp_path / ".git" / "logs" / "HEAD").write_text(reflog)
    (tmp_path / "hooks").mkdir()
    log = tmp_path / "runs.log"
    (tmp_path / "hooks" / "memidx-hook").write_text(f'echo "$*" >> "{log}"\n')
    script = tmp_path / "reference-transaction"
    script.write_text(shim("reference-transaction"))
    return script, log


def run(script: Path, lines: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/sh", str(script), "committed"],
        input=lines,
        cwd=script.parent,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_a_transaction_of_many_refs_is_read_at_once(tmp_path: Path) -> None:
    """`git tag -d $(git tag)`, fetch --atomic, update-ref --stdin: one transaction, one line
    a ref; appending them one by one to a shell variable took minutes for 30000 tags."""
    script, log = repo_with_shim(tmp_path, "")
    lines = "".join(f"{NULL} {OID} refs/tags/t{n}\n" for n in range(20000))
    started = time.monotonic()
    done = run(script, lines)
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 10
    assert not log.exists()


def test_a_new_work_tree_s_first_head_is_left_to_its_post_checkout(tmp_path: Path) -> None:
    """`git worktree add --detach` writes the new HEAD with update-ref (no reflog message)
    before its files are checked out; post-checkout follows it."""
    reflog = f"{NULL} {OID} a <a@b> 1796300707 +0000\n"
    script, log = repo_with_shim(tmp_path, reflog)
    done = run(script, f"{NULL} {OID} HEAD\n")
    assert done.returncode == 0, done.stderr
    assert not log.exists()


def test_update_ref_of_head_starts_memidx_once(tmp_path: Path) -> None:
    """git gives 0{40} as the old value update-ref was not given; HEAD's reflog has its own."""
    reflog = f"{'b' * 40} {OID} a <a@b> 1796300707 +0000\n"
    script, log = repo_with_shim(tmp_path, reflog)
    done = run(script, f"{NULL} {OID} HEAD\n{NULL} {OID} refs/heads/main\n")
    assert done.returncode == 0, done.stderr
    assert log.read_text() == "hook reference-transaction\n"


@pytest.mark.parametrize(
    ("message", "runs"),
    [
        ("am --abort", "hook reference-transaction\n"),  # HEAD back: no post-* hook follows
        ("am: --abort", None),  # a patch whose subject is --abort: post-applypatch follows
        ("am: a patch", None),
        ("cherry-pick: a commit", None),  # post-commit follows
        ("reset: moving to HEAD~2", "hook reference-transaction\n"),  # cherry-pick --abort too
    ],
)
def test_an_abort_that_moves_head_back_starts_memidx_and_a_step_does_not(
    tmp_path: Path, message: str, runs: str | None
) -> None:
    reflog = f"{'b' * 40} {OID} a <a@b> 1796300707 +0000\t{message}\n"
    script, log = repo_with_shim(tmp_path, reflog)
    done = run(script, f"{'b' * 40} {OID} HEAD\n{'b' * 40} {OID} refs/heads/main\n")
    assert done.returncode == 0, done.stderr
    assert (log.read_text() if log.exists() else None) == runs
