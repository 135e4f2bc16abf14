"""A switch at memidx's move left memidx's note staged on the side branch (`A notes/x.md`),
and memidx takes it out there (memidx/git/index_follow.py). A person's `git switch main` that
lands between memidx's look at HEAD (side) and its `git rm --cached` found the note staged, as
main holds it, and went home with it: memidx then took it out of main's index and work tree,
`git status` said `D  notes/x.md`, and the person's next commit deleted the note from main.
Now what a switch back brought is put back: the note stays as main holds it.

A `git` first on PATH plays both switches: after memidx's `update-ref`, git's two-way checkout
to `side` with the index as it was, then (after memidx's reset, or a new note's checkout,
staged the note) HEAD set to `side`; at memidx's first `git rm`, a whole `git switch main`
first."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.cli.test_switch_at_the_move import BODY, NOTE, machine_with_a_side_branch

SWITCHING_BACK_GIT = """#!/bin/sh
if [ "$1" = update-ref ] && [ ! -e "$MARK" ]; then
  : > "$MARK"
  "$REAL_GIT" "$@"
  moved=$?
  env -u GIT_INDEX_FILE "$REAL_GIT" read-tree -m -u HEAD^ side >>"$MARK" 2>&1
  exit $moved
fi
if { [ "$1" = reset ] || [ "$3" = checkout ]; } && [ -e "$MARK" ] && [ ! -e "$MARK.side" ]; then
  : > "$MARK.side"
  "$REAL_GIT" "$@"
  done=$?
  "$REAL_GIT" symbolic-ref HEAD refs/heads/side >>"$MARK" 2>&1
  exit $done
fi
if [ "$1" = rm ] && [ ! -e "$MARK.back" ]; then
  : > "$MARK.back"
  "$REAL_GIT" -c core.hooksPath=/dev/null switch -q main >>"$MARK" 2>&1
fi
exec "$REAL_GIT" "$@"
"""


@pytest.mark.xfail(
    strict=True,
    reason="the shim plays the person's first switch (read-tree -m -u) right after memidx's "
    "update-ref, while memidx now holds index.lock through the move and the index's follow "
    "(memidx/git/move_script.py), so a real git is refused there ('index.lock: File exists'): "
    "the scene must be played after memidx lets the index go; for the lead",
)
def test_a_switch_back_at_the_take_out_keeps_the_note_on_main(tmp_path: Path) -> None:
    machine = machine_with_a_side_branch(tmp_path)
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "git").write_text(SWITCHING_BACK_GIT)
    (shim / "git").chmod(0o755)
    real = shutil.which("git", path=machine.env["PATH"])
    assert real is not None
    mark = tmp_path / "switched"
    said = machine.memidx_process(
        "remember", "--title", "WSL memory", "--json", stdin=BODY,
        PATH=f"{shim}:{machine.env['PATH']}", REAL_GIT=real, MARK=str(mark),
    )  # fmt: skip
    assert said.code == 0 and "Traceback" not in said.err, said.err
    assert Path(f"{mark}.back").exists() and mark.read_text() == ""  # both switches made
    assert machine.git("symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert NOTE in machine.git("ls-tree", "-r", "--name-only", "HEAD")
    # it was `D  notes/wsl-memory.md`: the person's next commit deleted main's note
    assert machine.git("status", "--porcelain", "--untracked-files=all") == ""
    assert (machine.root / NOTE).read_text(encoding="utf-8").endswith(BODY)
