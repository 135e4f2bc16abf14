"""A person's switch to the side branch that lands just after memidx's move leaves memidx's
note staged there, and memidx takes it out there (memidx/git/index_follow.py). A person's `git
switch main` that lands between memidx's look at HEAD (side) and its `git rm --cached` found the
note staged, as main holds it, and went home with it: memidx then took it out of main's index,
`git status` said `D  notes/x.md`, and the person's next commit deleted the note from main. Now
the take-out looks at HEAD under git's index lock, and what a switch back that straddles it
brought is put back: the note stays as main holds it.

A `git` first on PATH plays both switches where real git can make them: at memidx's first git
command once it lets git's index go after the move (memidx/git/move_script.py holds it through
the move), a whole `git switch side`; then a `git switch main` whose index and files (git's
two-way `read-tree -m -u`) land before memidx's take-out takes git's index lock, and whose
HEAD (which needs no index lock) lands as memidx takes the note out."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_switch_at_the_move import BODY, NOTE, machine_with_a_side_branch
from tests.git_shims import shim_env

SWITCHING_BACK_GIT = """#!/bin/sh
if [ "$1" = update-ref ] && [ ! -e "$MARK" ]; then
  : > "$MARK"
  exec "$REAL_GIT" "$@"
fi
if [ -e "$MARK" ] && [ ! -e "$MARK.side" ] && [ -z "$GIT_INDEX_FILE" ] \\
  && [ ! -e "$("$REAL_GIT" rev-parse --git-dir)/index.lock" ]; then
  : > "$MARK.side"
  "$REAL_GIT" -c core.hooksPath=/dev/null switch -q side >>"$MARK" 2>&1
fi
if [ "$1" = ls-tree ] && [ "$2" = -r ] && [ -e "$MARK.side" ] && [ ! -e "$MARK.index" ]; then
  : > "$MARK.index"  # the switch back's index and files, before memidx's take-out
  "$REAL_GIT" read-tree -m -u side main >>"$MARK" 2>&1
fi
case "$*" in
  *--force-remove*) if [ -e "$MARK.index" ] && [ ! -e "$MARK.back" ]; then
    : > "$MARK.back"  # its HEAD, written as memidx takes the note out (no index lock needed)
    "$REAL_GIT" symbolic-ref HEAD refs/heads/main >>"$MARK" 2>&1
  fi ;;
esac
exec "$REAL_GIT" "$@"
"""


def test_a_switch_back_at_the_take_out_keeps_the_note_on_main(tmp_path: Path) -> None:
    machine = machine_with_a_side_branch(tmp_path)
    shimmed = shim_env(tmp_path / "bin", SWITCHING_BACK_GIT, machine.env["PATH"])
    mark = tmp_path / "switched"
    said = machine.memidx_process(
        "remember", "--title", "WSL memory", "--json", stdin=BODY,
        **shimmed, MARK=str(mark),
    )  # fmt: skip
    assert said.code == 0 and "Traceback" not in said.err, said.err
    assert Path(f"{mark}.back").exists() and mark.read_text() == ""  # both switches made
    assert machine.git("symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert NOTE in machine.git("ls-tree", "-r", "--name-only", "HEAD")
    # it was `D  notes/wsl-memory.md`: the person's next commit deleted main's note
    assert machine.git("status", "--porcelain", "--untracked-files=all") == ""
    assert (machine.root / NOTE).read_text(encoding="utf-8").endswith(BODY)


# the person's editor saves the note's file on side as memidx takes it out there (after memidx
# read it: byte for byte what it committed), at memidx's `git rm --cached`
SAVING_GIT = """#!/bin/sh
if [ "$1" = update-ref ] && [ ! -e "$MARK" ]; then
  : > "$MARK"
  exec "$REAL_GIT" "$@"
fi
if [ -e "$MARK" ] && [ ! -e "$MARK.side" ] && [ -z "$GIT_INDEX_FILE" ] \\
  && [ ! -e "$("$REAL_GIT" rev-parse --git-dir)/index.lock" ]; then
  : > "$MARK.side"
  "$REAL_GIT" -c core.hooksPath=/dev/null switch -q side >>"$MARK" 2>&1
fi
case "$*" in
  *rm*--cached*|*--force-remove*) if [ -e "$MARK.side" ] && [ ! -e "$MARK.saved" ]; then
    : > "$MARK.saved"; printf 'my edit\\n' > "$SAVED"
  fi ;;
esac
exec "$REAL_GIT" "$@"
"""


def test_an_edit_saved_as_memidx_takes_the_note_out_of_side_is_kept(tmp_path: Path) -> None:
    """memidx read the file (its own note), then `git rm --cached` refused the entry (the file
    differed from it by then) and main's note stayed staged on side under the edit (`AM`, for
    the person's next commit). The file is now moved aside before it is read, under git's
    index lock, so a save after that look writes a file of its own, which stays, untracked."""
    machine = machine_with_a_side_branch(tmp_path)
    shimmed = shim_env(tmp_path / "bin", SAVING_GIT, machine.env["PATH"])
    mark = tmp_path / "switched"
    said = machine.memidx_process(
        "remember", "--title", "WSL memory", "--json", stdin=BODY,
        **shimmed, MARK=str(mark),
        SAVED=str(machine.root / NOTE),
    )  # fmt: skip
    assert said.code == 0 and "Traceback" not in said.err, said.err
    assert Path(f"{mark}.saved").exists()
    assert machine.git("symbolic-ref", "HEAD").strip() == "refs/heads/side"
    assert (machine.root / NOTE).read_text() == "my edit\n"  # it was gone
    assert machine.git("status", "--porcelain", "--untracked-files=all") == f"?? {NOTE}\n"
    assert NOTE in machine.git("ls-tree", "-r", "--name-only", "main")
