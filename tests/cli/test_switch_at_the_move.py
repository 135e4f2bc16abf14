"""A person's `git switch side` that lands just after memidx moved HEAD (main) reads HEAD as
the new commit and takes memidx's files out of side's index and work tree; memidx's own `git
reset` of the paths it committed, run after its look at HEAD (still main), then staged them on
side again (`A notes/x.md`, its file gone), for the person's next commit there: a note forgotten
on main came back with the side branch's merge (tests/benchmark/chaos.py, a forgotten note back
in the remote), and a haystack segment went into the person's commit on side. Now memidx
resets nothing the move's own follow (under its index lock) already told git's index, and what
a switch at a reset it must make left on side is taken out there again.

A `git` first on PATH runs, at memidx's first git command once it lets git's index go after the
move, a real `git switch side` (its hooks too), as a person's switch at that instant does."""

from __future__ import annotations

import contextlib
import json
import os
import signal
from pathlib import Path

from tests.git_shims import shim_env
from tests.machines import Machine, clone, hook_env, make_template

SWITCHING_GIT = """#!/bin/sh
if [ "$1" = update-ref ] && [ ! -e "$SWITCH_MARK" ]; then
  : > "$SWITCH_MARK"
  exec "$REAL_GIT" "$@"
fi
if [ -e "$SWITCH_MARK" ] && [ ! -e "$SWITCH_MARK.done" ] && [ -z "$GIT_INDEX_FILE" ] \\
  && [ ! -e "$("$REAL_GIT" rev-parse --git-dir)/index.lock" ]; then
  : > "$SWITCH_MARK.done"
  "$REAL_GIT" switch -q side >>"$SWITCH_MARK" 2>&1 || echo "switch failed" >>"$SWITCH_MARK"
fi
exec "$REAL_GIT" "$@"
"""
BODY = "The vmmem process grows until it takes all the RAM; set memory=4GB in .wslconfig.\n"
NOTE = "notes/wsl-memory.md"


def machine_with_a_side_branch(tmp_path: Path) -> Machine:
    env = hook_env(tmp_path / "pre-commit-home")
    machine = clone(make_template(tmp_path, env), tmp_path / "a", env)
    (machine.root / "notes" / "first.md").write_text("---\ntitle: First\n---\n\n" + BODY)
    machine.commit("first", checks=False)
    machine.git("branch", "side", "HEAD~1")
    return machine


def person_commits(machine: Machine) -> None:
    """The person's own note on the side branch, staged and committed (`git commit`)."""
    (machine.root / "notes" / "mine.md").write_text("---\ntitle: Mine\n---\n\n" + BODY)
    machine.git("add", "notes/mine.md")
    machine.git("commit", "-q", "-m", "the person's work on side")


def switching(tmp_path: Path, machine: Machine) -> dict[str, str]:
    """The environment of a memidx run whose first HEAD move a switch to `side` straddles."""
    shimmed = shim_env(tmp_path / "bin", SWITCHING_GIT, machine.env["PATH"])
    return {**shimmed, "SWITCH_MARK": str(tmp_path / "switched")}


def test_a_note_forgotten_on_main_stays_forgotten_after_the_side_branch_is_merged(
    tmp_path: Path,
) -> None:
    machine = machine_with_a_side_branch(tmp_path)
    said = machine.memidx_process(
        "remember", "--title", "WSL memory", "--json", stdin=BODY, **switching(tmp_path, machine)
    )
    assert said.code == 0 and "Traceback" not in said.err, said.err
    assert "failed" not in (tmp_path / "switched").read_text()  # the switch was made
    assert machine.git("symbolic-ref", "HEAD").strip() == "refs/heads/side"
    assert NOTE in machine.git("ls-tree", "-r", "--name-only", "main")
    # it was `A  notes/wsl-memory.md`: main's note staged on side, for the person's commit
    assert machine.git("status", "--porcelain") == ""
    assert not (machine.root / NOTE).exists()
    person_commits(machine)  # what is staged: it took main's note along
    machine.git("switch", "-q", "main")
    forgot = machine.memidx_process("forget", "--json", NOTE)
    assert forgot.code == 0, forgot.err
    machine.git("merge", "-q", "--no-edit", "side")
    assert NOTE not in machine.git("ls-tree", "-r", "--name-only", "HEAD")


def test_a_segment_committed_at_a_switch_never_blocks_the_switch_back(tmp_path: Path) -> None:
    machine = machine_with_a_side_branch(tmp_path)
    filed = machine.memidx_process("file-turn", "--json", stdin=json.dumps({"text": BODY}))
    assert filed.code == 0, filed.err
    done = machine.memidx_process("haystack", "commit", **switching(tmp_path, machine))
    assert done.code == 0 and "Traceback" not in done.err, done.err
    assert machine.git("symbolic-ref", "HEAD").strip() == "refs/heads/side"
    main = machine.git("ls-tree", "-r", "--name-only", "main")
    assert ".krd" in main
    assert machine.git("status", "--porcelain", "--untracked-files=all") == ""
    person_commits(machine)
    machine.git("switch", "-q", "main")  # refused when the segment stayed on side
    assert machine.git("status", "--porcelain", "--untracked-files=all") == ""


def test_forget_of_a_copy_another_branch_holds_forgets_nothing_and_says_where(
    tmp_path: Path,
) -> None:
    """The note is main's, its file left on side as an untracked copy (as a switch at a
    move left it before): forget deleted the copy and said it was forgotten (exit 0, no
    commit), and main took the note to the remote."""
    machine = machine_with_a_side_branch(tmp_path)
    said = machine.memidx_process("remember", "--title", "WSL memory", stdin=BODY)
    assert said.code == 0, said.err
    text = (machine.root / NOTE).read_bytes()
    machine.git("switch", "-q", "side")
    (machine.root / NOTE).write_bytes(text)

    forgot = machine.memidx_process("forget", "--json", NOTE)

    assert forgot.code == 1 and "Traceback" not in forgot.err, forgot.err
    assert forgot.err.strip() == (
        f"memidx: error: {NOTE} is not in HEAD's commit, but main holds it (the file here is a "
        "copy left in the work tree), so it was not forgotten (forget it there: git switch "
        f"main, then memidx forget {NOTE})"
    )
    assert (machine.root / NOTE).read_bytes() == text  # nothing lost, nothing written
    assert NOTE in machine.git("ls-tree", "-r", "--name-only", "main")


def test_forget_of_a_file_of_its_own_on_side_forgets_it(tmp_path: Path) -> None:
    """The person's own file at a note's path on side (other bytes than main's note) is no
    copy left by a switch: forget refused it, saying "the file here is a copy"."""
    machine = machine_with_a_side_branch(tmp_path)
    said = machine.memidx_process("remember", "--title", "WSL memory", stdin=BODY)
    assert said.code == 0, said.err
    machine.git("switch", "-q", "side")
    (machine.root / NOTE).write_text("---\ntitle: Mine\n---\n\nmy own draft, never committed\n")

    forgot = machine.memidx_process("forget", "--json", NOTE)

    assert forgot.code == 0 and "Traceback" not in forgot.err, forgot.err
    assert not (machine.root / NOTE).exists()
    assert NOTE in machine.git("ls-tree", "-r", "--name-only", "main")  # main's note stays


# a `git` first on PATH: right after memidx's move, a `git pull` of the clone starts (one that
# outlasts memidx's wait for it: its remote answers after 15 s; a session of its own, so the
# test ends it with its fetch), as a person's did in the bench
PULLING_GIT = """#!/bin/sh
if [ "$1" = update-ref ] && [ ! -e "$PULL_PID" ]; then
  "$REAL_GIT" "$@"
  moved=$?
  setsid "$REAL_GIT" -c protocol.ext.allow=always pull -q "ext::sleep 15" main </dev/null \\
    >/dev/null 2>&1 &
  echo $! > "$PULL_PID"
  # until the pull runs as git (memidx's index follows at once, no git run after the move): its
  # program is git, not its comm (this shim's fork, named git too, before its exec of setsid)
  real=$(readlink -f "$REAL_GIT") i=0
  while [ "$(readlink /proc/$!/exe 2>/dev/null)" != "$real" ] && [ $i -lt 500 ]; do
    sleep 0.02; i=$((i+1))
  done
  exit $moved
fi
exec "$REAL_GIT" "$@"
"""


def test_a_forget_a_pull_starts_with_says_it_is_forgotten(tmp_path: Path) -> None:
    """It said `HEAD moved while notes/x.md was being forgotten ..., so notes/x.md was not
    forgotten`, exit 1, of a note whose deletion was committed, and pushed once the pull ended
    (tests/benchmark/chaos.py: a note acknowledged and never forgotten lacked in the remote)."""
    machine = machine_with_a_side_branch(tmp_path)
    said = machine.memidx_process("remember", "--title", "WSL memory", stdin=BODY)
    assert said.code == 0, said.err
    shimmed = shim_env(tmp_path / "pulling-bin", PULLING_GIT, machine.env["PATH"])
    pid = tmp_path / "pull.pid"
    try:
        forgot = machine.memidx_process(
            "forget", "--json", NOTE, **shimmed,
            PULL_PID=str(pid),
        )  # fmt: skip
    finally:
        if pid.exists():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(int(pid.read_text()), signal.SIGKILL)  # the pull and its fetch
    assert forgot.code == 0 and "Traceback" not in forgot.err, forgot.err
    commit = json.loads(forgot.out)["commit"]
    assert commit and machine.git("rev-parse", "HEAD").strip() == commit
    assert NOTE not in machine.git("ls-tree", "-r", "--name-only", "HEAD")
    assert f"memidx: warning: {NOTE} is forgotten ({commit[:12]}), but a git pull " in forgot.err


# a `git` first on PATH: as memidx builds the forget's commit, a person's git puts the note's
# file back (a `git pull --rebase --autostash` does, with its `reset --hard`)
RESTORING_GIT = """#!/bin/sh
if [ "$1" = read-tree ] && [ ! -e "$RESTORE_MARK" ]; then
  : > "$RESTORE_MARK"
  env -u GIT_INDEX_FILE "$REAL_GIT" checkout -q HEAD -- "$RESTORE_PATH"
fi
exec "$REAL_GIT" "$@"
"""


def test_a_forget_whose_file_a_git_puts_back_is_done_all_the_same(tmp_path: Path) -> None:
    """A person's git that puts the note's file back while memidx builds the forget's commit
    (a pull's autostash `reset --hard`, a checkout) finds nothing deleted: the file leaves
    only with HEAD's move. The forget deleted the file first: it said it was forgotten, exit 0,
    naming HEAD as its commit, its deletion lost (chaos bench, seed 2); later it said the
    note was not forgotten, exit 1, and a pull's autostash deleted it again after that."""
    machine = machine_with_a_side_branch(tmp_path)
    said = machine.memidx_process("remember", "--title", "WSL memory", stdin=BODY)
    assert said.code == 0, said.err
    shimmed = shim_env(tmp_path / "restoring-bin", RESTORING_GIT, machine.env["PATH"])
    forgot = machine.memidx_process(
        "forget", "--json", NOTE, **shimmed,
        RESTORE_MARK=str(tmp_path / "restored"), RESTORE_PATH=NOTE,
    )  # fmt: skip
    assert (tmp_path / "restored").exists()
    assert forgot.code == 0 and forgot.err == "", forgot.err
    assert json.loads(forgot.out)["commit"] == machine.git("rev-parse", "HEAD").strip()
    assert NOTE not in machine.git("ls-tree", "-r", "--name-only", "HEAD")
    assert not (machine.root / NOTE).exists()
    assert machine.git("status", "--porcelain") == ""
