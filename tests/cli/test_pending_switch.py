"""A note remembered on a branch lands on that branch, even when the person switches to another
while memidx builds its commit (tests/benchmark/chaos.py, seed 3: the commit was built again
on the new HEAD and published there, on a local side branch that was never merged, so two
acknowledged notes reached no remote)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from memidx.memory.pending_notes import LOCK
from memidx.portable import file_lock
from tests.git_shims import shim_env
from tests.machines import Machine, clone, hook_env, make_template

BODY = "The vmmem process grows until it takes all the RAM; set memory=4GB in .wslconfig.\n"
# a `git` first on PATH: at memidx's first commit-tree, the person switches to a side branch
SWITCHING_GIT = """#!/bin/sh
for arg in "$@"; do
  if [ "$arg" = commit-tree ] && [ ! -e "$SWITCH_MARK" ]; then
    : > "$SWITCH_MARK"
    env -u GIT_INDEX_FILE "$REAL_GIT" switch -q -c side HEAD~1 >/dev/null 2>&1
    break
  fi
done
exec "$REAL_GIT" "$@"
"""


def test_a_switch_while_a_note_is_committed_leaves_it_for_its_branch(tmp_path: Path) -> None:
    env = hook_env(tmp_path / "pre-commit-home")
    machine: Machine = clone(make_template(tmp_path, env), tmp_path / "a", env)
    (machine.root / "notes" / "first.md").write_text("---\ntitle: First\n---\n\n" + BODY)
    machine.commit("first", checks=False)  # HEAD~1 is there to switch to
    shimmed = shim_env(tmp_path / "bin", SWITCHING_GIT, env["PATH"])
    mark = tmp_path / "switched"

    said = machine.memidx_process(
        "remember", "--title", "WSL memory", "--json", stdin=BODY,
        **shimmed, SWITCH_MARK=str(mark),
    )  # fmt: skip

    assert said.code == 0 and "Traceback" not in said.err, said.err
    assert mark.exists() and machine.git("symbolic-ref", "HEAD").strip() == "refs/heads/side"
    # it said "committed once that git command ends", of a note that waits for main; since
    # wt-pend2 it is committed on main at once, without checking main out
    assert "committed notes/wsl-memory.md on main, the branch it was remembered on" in said.err
    assert "once that git command ends" not in said.err, said.err
    assert "notes/wsl-memory.md" not in machine.git("ls-tree", "-r", "--name-only", "side")
    assert "notes/wsl-memory.md" in machine.git("ls-tree", "-r", "--name-only", "main")
    assert machine.git("status", "--porcelain") == ""  # its file left side's work tree
    machine.git("switch", "-q", "main")
    assert machine.git("log", "-1", "--format=%s", "main") == "memidx remember: WSL memory\n"
    assert machine.git("status", "--porcelain") == ""


def _waits_on(pid: int, lock: Path) -> bool:
    """Whether process `pid` has `lock` open (it is in file_lock, waiting for it)."""
    try:
        return any(link.readlink() == lock for link in Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False


def test_a_note_is_kept_for_the_branch_it_is_written_on(tmp_path: Path) -> None:
    """chaos.py, seed 3: a `remember` read HEAD's branch (a side branch), waited for another's
    remember.lock while the person switched back to main, then wrote its note in main's work
    tree, pending for the side branch, never merged: exit 0, and the note committed nowhere."""
    env = hook_env(tmp_path / "pre-commit-home")
    machine: Machine = clone(make_template(tmp_path, env), tmp_path / "a", env)
    (machine.root / "notes" / "first.md").write_text("---\ntitle: First\n---\n\n" + BODY)
    machine.commit("first", checks=False)
    machine.git("switch", "-q", "-c", "side", "HEAD~1")
    lock = (machine.root / ".memidx" / LOCK).resolve()
    (tmp_path / "body.md").write_text(BODY)
    with file_lock(lock) as taken, (tmp_path / "body.md").open() as body:
        assert taken
        started = subprocess.Popen(
            [str(Path(sys.executable).parent / "memidx"), "remember", "--title", "WSL memory"],
            cwd=machine.root, env={"MEMIDX_ROOT": str(machine.root), **env},
            stdin=body, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while not _waits_on(started.pid, lock) and time.monotonic() < deadline:
            time.sleep(0.05)
        machine.git("switch", "-q", "main")
    out, err = started.communicate(timeout=60)

    assert started.returncode == 0 and "Traceback" not in err, err
    assert "notes/wsl-memory.md" in machine.git("ls-tree", "-r", "--name-only", "main"), out + err
    assert machine.git("status", "--porcelain") == ""


# at memidx's first read-tree, HEAD is detached on the commit before the note (a person's
# `git pull --rebase` starts there, replaying the note's commit later)
DETACHING_GIT = SWITCHING_GIT.replace("commit-tree", "read-tree").replace(
    "switch -q -c side HEAD~1", "checkout -q --detach HEAD~1"
)


def test_a_forget_that_races_a_head_move_says_so_in_one_line(tmp_path: Path) -> None:
    """chaos.py, seed 3: a forget during a person's `git pull --rebase` printed git's raw
    `pathspec ':(literal)notes/x.md' did not match any files`, no cause, no remedy."""
    env = hook_env(tmp_path / "pre-commit-home")
    machine: Machine = clone(make_template(tmp_path, env), tmp_path / "a", env)
    (machine.root / "notes" / "first.md").write_text("---\ntitle: First\n---\n\n" + BODY)
    machine.commit("first", checks=False)
    shimmed = shim_env(tmp_path / "bin", DETACHING_GIT, env["PATH"])
    mark = tmp_path / "detached"

    said = machine.memidx_process(
        "forget", "notes/first.md", **shimmed,
        SWITCH_MARK=str(mark),
    )  # fmt: skip

    assert mark.exists() and said.code == 1, said.out + said.err
    lines = said.err.splitlines()
    assert len(lines) == 1 and "pathspec" not in said.err, said.err
    assert "notes/first.md was not forgotten" in said.err and "HEAD moved" in said.err
    machine.git("switch", "-q", "main")
    assert (machine.root / "notes" / "first.md").is_file()
    assert machine.git("status", "--porcelain") == ""


def test_a_haystack_commit_during_a_switch_stays_off_the_side_branch(tmp_path: Path) -> None:
    """The same race for the haystack: the turn's segment, filed on main, was committed on
    the side branch the person switched to while memidx built the commit."""
    env = hook_env(tmp_path / "pre-commit-home")
    machine: Machine = clone(make_template(tmp_path, env), tmp_path / "a", env)
    (machine.root / "notes" / "first.md").write_text("---\ntitle: First\n---\n\n" + BODY)
    machine.commit("first", checks=False)
    filed = machine.memidx_process("file-turn", stdin='{"text": "a turn on main", "session": "s"}')
    assert filed.code == 0, filed.err
    shimmed = shim_env(tmp_path / "bin", SWITCHING_GIT, env["PATH"])

    said = machine.memidx_process(
        "haystack", "commit", **shimmed,
        SWITCH_MARK=str(tmp_path / "switched"),
    )  # fmt: skip

    assert (tmp_path / "switched").exists() and "Traceback" not in said.err, said.err
    assert "notes/haystack/" not in machine.git("ls-tree", "-r", "--name-only", "side")
    # which branch it was meant for and which HEAD is on: "another branch" named neither
    assert said.code == 1 and len(said.err.strip().splitlines()) == 1, said.err
    assert "HEAD is on side now, not on main as when this began" in said.err, said.err
    assert (
        "(to do it on side, try again; to do it on main, git switch main, then try again)"
        in said.err
    )


# as SWITCHING_GIT, then main checked out in another work tree at once
HOLDING_GIT = SWITCHING_GIT.replace(
    ">/dev/null 2>&1\n",
    '>/dev/null 2>&1 && env -u GIT_INDEX_FILE "$REAL_GIT" worktree add -q "$OTHER" main\n',
)


def test_a_note_whose_branch_another_work_tree_took_says_what_commits_it(
    tmp_path: Path,
) -> None:
    """It said "committed once main is checked out again (...) there", where git refuses to
    check main out while the other work tree has it: what commits it is the next sync here
    once that work tree lets main go."""
    env = hook_env(tmp_path / "pre-commit-home")
    machine: Machine = clone(make_template(tmp_path, env), tmp_path / "a", env)
    (machine.root / "notes" / "first.md").write_text("---\ntitle: First\n---\n\n" + BODY)
    machine.commit("first", checks=False)
    shimmed = shim_env(tmp_path / "bin", HOLDING_GIT, env["PATH"])
    other = tmp_path / "other"

    said = machine.memidx_process(
        "remember", "--title", "WSL memory", stdin=BODY, **shimmed,
        SWITCH_MARK=str(tmp_path / "switched"), OTHER=str(other),
    )  # fmt: skip

    assert said.code == 0 and "Traceback" not in said.err, said.err
    assert (other / "notes" / "first.md").exists()  # main is checked out there
    held = f"its branch, main, is checked out in another work tree ({other})"
    assert held in said.err and "checked out again" not in said.err, said.err
    assert "the next `memidx sync` (or `remember`, or a git hook) here commits it" in said.err
    machine.git("-C", str(other), "switch", "-q", "--detach")
    synced = machine.memidx_process("sync")  # or the finisher `remember` started, first
    assert synced.code == 0, synced.err
    assert "notes/wsl-memory.md" in machine.git("ls-tree", "-r", "--name-only", "main")
    assert machine.git("status", "--porcelain") == ""  # its file left this work tree
