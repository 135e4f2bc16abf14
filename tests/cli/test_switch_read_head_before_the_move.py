"""A person's `git switch side` reads HEAD when it starts and takes git's index after: one that
read HEAD (main) just before memidx moved it took git's index once memidx let it go, memidx's
files staged in it, and checked side out from the commit memidx built on, so they stayed staged
on side (`A notes/x.md`), for the person's next commit there. memidx took them out only if it
lived on after its move: killed there (an agent hook's timeout), it left them. Now memidx moves
HEAD only once no switch of its work tree is under way.

Real git cannot be stopped between its read of HEAD and its take of the index, so a process
that git's process table shows as `git switch side` (a shell started through a link named
`git`, `git -c <script> switch side`) plays one: it starts just before memidx's `update-ref`,
reads HEAD, and once HEAD moved and git's index is free (for at most ~3 s), makes git's own
two-way checkout from the HEAD it read to side, then points HEAD at side. A `git` first on PATH
starts it, and kills memidx as soon as its move is over."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import time
from pathlib import Path

from tests.cli.test_switch_at_the_move import BODY, NOTE, machine_with_a_side_branch

STRADDLING_GIT = """#!/bin/sh
if [ "$1" = update-ref ] && [ ! -e "$MARK" ]; then
  : > "$MARK"
  OLD=$("$REAL_GIT" rev-parse HEAD) "$SWITCH_LINK" -c "$SWITCH" switch side </dev/null \\
    >>"$MARK" 2>&1 &
  echo $! > "$MARK.pid"
  i=0  # until it runs as `git switch side`, HEAD read: this shim's fork is named git too
  until case $(tr '\\0' ' ' <"/proc/$!/cmdline") in *" switch side ") ;; *) false;; esac \\
    || [ $i -ge 500 ]; do sleep 0.02; i=$((i+1)); done 2>/dev/null
  "$REAL_GIT" "$@"
  moved=$?
  if [ "$("$REAL_GIT" rev-parse HEAD)" != "$OLD_HEAD" ]; then
    kill -9 "$(cut -d' ' -f4 "/proc/$PPID/stat")"  # memidx, the shell's parent
  fi
  exit $moved
fi
exec "$REAL_GIT" "$@"
"""
SWITCH = """i=0
while [ $i -lt 150 ]; do
  [ "$("$REAL_GIT" rev-parse HEAD)" != "$OLD" ] && [ ! -e .git/index.lock ] && break
  sleep 0.02; i=$((i+1))
done
"$REAL_GIT" read-tree -m -u "$OLD" side && "$REAL_GIT" symbolic-ref HEAD refs/heads/side
: > "$MARK.done"
"""


def test_a_switch_that_read_head_before_the_move_takes_nothing_of_memidx_along(
    tmp_path: Path,
) -> None:
    machine = machine_with_a_side_branch(tmp_path)
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "git").write_text(STRADDLING_GIT)
    (shim / "git").chmod(0o755)
    link = tmp_path / "switching" / "git"  # the process table's `git switch side`
    link.parent.mkdir()
    link.symlink_to("/bin/sh")
    real = shutil.which("git", path=machine.env["PATH"])
    assert real is not None
    mark = tmp_path / "switched"
    old = machine.git("rev-parse", "HEAD").strip()
    try:
        said = machine.memidx_process(
            "remember", "--title", "WSL memory", "--json", stdin=BODY,
            PATH=f"{shim}:{machine.env['PATH']}", REAL_GIT=real, MARK=str(mark),
            SWITCH_LINK=str(link), SWITCH=SWITCH, OLD_HEAD=old,
        )  # fmt: skip
        for _ in range(200):  # the switch ends within ~3 s; 20 s at most
            if Path(f"{mark}.done").exists():
                break
            time.sleep(0.1)
    finally:
        if Path(f"{mark}.pid").exists():
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(Path(f"{mark}.pid").read_text()), signal.SIGKILL)
    assert Path(f"{mark}.done").exists() and "fatal" not in mark.read_text(), mark.read_text()
    assert machine.git("symbolic-ref", "HEAD").strip() == "refs/heads/side"
    # it was `A  notes/wsl-memory.md`: main's note staged on side, for the person's commit
    assert machine.git("status", "--porcelain", "--untracked-files=all") == ""
    assert said.code == 0 and "Traceback" not in said.err, said.err
    assert NOTE in machine.git("ls-tree", "-r", "--name-only", "main")
    assert NOTE not in machine.git("ls-tree", "-r", "--name-only", "side")
