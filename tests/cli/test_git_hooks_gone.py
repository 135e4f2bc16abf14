"""memidx's own git hooks when the memory's folder, or its `.memidx`, is removed while they run:
a person committing in a worktree of the memory while that folder vanishes, an `rm -rf
.memidx` in the middle of a hook's sync. A post-* hook never blocks the git operation (git
exits 0, its commit, merge, checkout or rebase made), says what it could not do in one line and
leaves that line in a trace, and makes again nothing memidx does not own (the removed work
tree); the pre-commit check refuses the commit with one line (exit 1), never a traceback."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import GIT_IDENTITY
from tests.machines import Machine, clone, hook_env, make_template

# memidx run as the hooks run it (`python -m memidx -C ROOT hook STAGE`, `... check all`), but
# with `$GONE` removed at `$AT` (a function memidx calls midway), then memidx going on
REMOVING = """#!/bin/sh
if [ "$1" = -m ] && [ "$2" = memidx ]; then
  shift 2
  exec "{python}" -c 'import importlib, os, runpy, shutil, sys
module, name = os.environ["AT"].rsplit(".", 1)
held = importlib.import_module(module)
real = getattr(held, name)
def removing(*args, **kwargs):
    shutil.rmtree(os.environ["GONE"], ignore_errors=True)
    return real(*args, **kwargs)
setattr(held, name, removing)
sys.argv = ["memidx", *sys.argv[1:]]
runpy.run_module("memidx", run_name="__main__", alter_sys=True)' "$@"
fi
exec "{python}" "$@"
"""
SYNC = "memidx.memory.head_sync.sync_to_head"  # the post-* hooks' sync, after its config
DRIFT = "memidx.githooks.checks.check_drift"  # the pre-commit check's look at the index


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    env = hook_env(tmp_path / "pre-commit-home", XDG_STATE_HOME=str(tmp_path / "state"))
    return clone(make_template(tmp_path, env), tmp_path / "a", env)


def removing(machine: Machine, tmp_path: Path, gone: Path, at: str) -> dict[str, str]:
    """The hooks' environment, their memidx removing `gone` at `at`."""
    script = tmp_path / "removing-python"
    script.write_text(REMOVING.format(python=sys.executable))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return {**machine.env, "MEMIDX_PYTHON": str(script), "GONE": str(gone), "AT": at}


def git(where: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    argv = ["git", *GIT_IDENTITY, *args]
    return subprocess.run(argv, cwd=where, env=env, capture_output=True, text=True, check=False)


def worktree(machine: Machine, tmp_path: Path) -> Path:
    """A worktree of the memory, on a branch of its own, its index built by a commit there."""
    work = tmp_path / "work"
    machine.git("worktree", "add", "-q", "-b", "side", str(work))
    (work / "notes" / "side.md").write_text("# Side\n\nThe side branch holds the kettle note.\n")
    done = git(work, machine.env, "add", "-A")
    done = git(work, machine.env, "commit", "-q", "--no-verify", "-m", "side")
    assert done.returncode == 0, done.stderr
    assert (work / ".memidx").is_dir()
    return work


def hook_lines(done: subprocess.CompletedProcess[str], stage: str) -> list[str]:
    """What memidx's hook at `stage` said (git's own lines left out)."""
    said = (done.stdout + done.stderr).splitlines()
    return [line for line in said if line.startswith(f"memidx: {stage}: ")]


def traced(tmp_path: Path, stage: str) -> list[str]:
    """The lines of the hooks' fallback traces (the memory's own is gone) at `stage`."""
    traces = (tmp_path / "state").glob("memidx/traces/*/hook-error.log")
    return [line for trace in traces for line in trace.read_text().splitlines() if stage in line]


STEPS = {  # what the person runs in the worktree, the stage whose hook then runs
    "post-commit": [("commit", "-q", "--no-verify", "-am", "edit")],
    "post-checkout": [("checkout", "-q", "-b", "other")],
    "post-merge": [("merge", "-q", "--no-edit", "--no-ff", "main")],
    "post-rewrite": [("commit", "-q", "--no-verify", "--amend", "-am", "amended")],
}


@pytest.mark.parametrize("stage", list(STEPS))
def test_a_post_hook_in_a_worktree_removed_under_it_never_blocks_git(
    machine: Machine, tmp_path: Path, stage: str
) -> None:
    work = worktree(machine, tmp_path)
    (work / "notes" / "side.md").write_text("# Side\n\nThe kettle note, edited.\n")
    if stage == "post-merge":  # main moves on, so the merge makes a commit
        machine.note("main.md", "Main", "the main branch holds the toaster note")
        machine.commit("main", checks=False)
        git(work, machine.env, "commit", "-q", "--no-verify", "-am", "edit")
    env = removing(machine, tmp_path, work, SYNC)

    done = git(work if work.is_dir() else machine.root, env, *STEPS[stage][0])

    assert done.returncode == 0, done.stdout + done.stderr  # git's operation went through
    assert "Traceback" not in done.stdout + done.stderr
    assert not work.exists()  # never made again: no .memidx, no trace, no folder
    lines = hook_lines(done, stage)
    assert len(lines) == 1, done.stdout + done.stderr
    assert f"the memory's folder {work} is gone (deleted or moved away)" in lines[0], lines
    assert any(str(work) in line for line in traced(tmp_path, stage)), "no trace kept"
    machine.git("worktree", "prune")
    assert machine.git("rev-parse", "side" if stage != "post-checkout" else "other")


@pytest.mark.parametrize("stage", ["post-commit", "post-checkout"])
def test_a_post_hook_whose_memidx_folder_is_removed_midway_never_blocks_git(
    machine: Machine, tmp_path: Path, stage: str
) -> None:
    work = worktree(machine, tmp_path)
    (work / "notes" / "side.md").write_text("# Side\n\nThe kettle note, edited.\n")
    env = removing(machine, tmp_path, work / ".memidx", SYNC)

    done = git(work, env, *STEPS[stage][0])

    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    said = [line for line in (done.stdout + done.stderr).splitlines() if "memidx" in line]
    assert len(said) <= 1, said  # one line at most: the index rebuilt is memidx's own
    status = subprocess.run(
        [sys.executable, "-m", "memidx", "-C", str(work), "status", "--json"],
        env=machine.env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert status.returncode == 0, status.stderr  # the index is memidx's: rebuilt, nothing lost
    assert (work / "notes" / "side.md").is_file()


def test_the_pre_commit_check_with_the_worktree_removed_refuses_in_one_line(
    machine: Machine, tmp_path: Path
) -> None:
    work = worktree(machine, tmp_path)
    (work / "notes" / "side.md").write_text("# Side\n\nThe kettle note, edited.\n")
    git(work, machine.env, "add", "-A")
    head = git(work, machine.env, "rev-parse", "HEAD").stdout.strip()
    env = removing(machine, tmp_path, work, DRIFT)

    done = git(machine.root, env, "-C", str(work), "commit", "-q", "-m", "edit")

    said = done.stdout + done.stderr
    assert done.returncode != 0, said  # refused
    assert "Traceback" not in said
    assert not work.exists(), said  # never made again
    assert machine.git("rev-parse", "side").strip() == head
    errors = [line for line in said.splitlines() if line.startswith("memidx: error: ")]
    assert len(errors) == 1, said
    assert f"the memory's folder {work} is gone (deleted or moved away)" in errors[0], said


@pytest.mark.skipif(sys.platform == "win32", reason="a folder name ending in a newline")
def test_a_shim_in_a_folder_whose_name_ends_in_a_newline_never_reads_it_as_gone(
    tmp_path: Path,
) -> None:
    from memidx.githooks.shims import shim

    script = tmp_path / "post-commit"
    script.write_text(shim("post-commit"))
    here = tmp_path / "memory\n"  # `$(pwd -P)` dropped its newline: a folder that is none
    here.mkdir()
    env = {"PATH": "/usr/bin:/bin", "XDG_STATE_HOME": str(tmp_path / "state")}

    argv = ["sh", str(script)]
    done = subprocess.run(argv, cwd=here, env=env, capture_output=True, text=True, check=False)

    assert done.returncode == 0, done.stderr
    assert "is gone" not in done.stderr, done.stderr
    assert f"no hooks/memidx-hook in {here}: index not updated" in done.stderr, done.stderr
    assert "no hooks/memidx-hook" in (here / ".memidx" / "hook-error.log").read_text()


def test_a_shim_never_names_as_gone_a_folder_that_is_there(tmp_path: Path) -> None:
    from memidx.githooks.shims import shim

    script = tmp_path / "post-rewrite"
    script.write_text(shim("post-rewrite"))
    main, moved, there = tmp_path / "main", tmp_path / "moved", tmp_path / "work"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "s")}
    assert git(tmp_path, env, "init", "-q", str(main)).returncode == 0
    assert git(main, env, "commit", "-q", "--allow-empty", "-m", "a").returncode == 0
    assert git(main, env, "worktree", "add", "-q", str(there)).returncode == 0
    there.rename(moved)  # a `mv`: git's file in main/.git/worktrees still names `there`
    there.mkdir()  # another folder at its old path
    argv = ["sh", "-c", 'rm -rf "$PWD" && exec sh "$0"', str(script)]  # the moved one removed
    in_hook = {**env, "GIT_DIR": str(main / ".git" / "worktrees" / "work")}

    done = subprocess.run(argv, cwd=moved, env=in_hook, text=True, capture_output=True, check=False)

    assert done.returncode == 0, done.stderr
    assert str(there) not in done.stderr, done.stderr  # it is there: never said gone
    assert "the memory's folder (the work tree) is gone" in done.stderr, done.stderr
    assert not (tmp_path / "s").exists()  # no trace under the other folder's name
