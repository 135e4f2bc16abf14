"""The text of memidx's post-index-change shim: the index follows the autostash git applies.

`git pull --rebase --autostash` (`rebase.autoStash`, `git merge --autostash`) takes the work
tree's changes to tracked files aside, a haystack segment's end a commit does not hold among
them, and applies them again after the operation's last hook (post-rewrite, post-merge,
post-checkout): the sync those ran saw the segment cut, and the records that came back were
found only at the next sync. git runs post-index-change at every write of its index (a `git
status` writes it), so the shim decides in shell: it starts memidx only when the work tree
changed while an autostash waits to be applied, HEAD back on its branch, and the process that
wrote the index is `git stash apply` (a `ps` of the parent; none to ask: started all the same).
"""

from __future__ import annotations

# Sets `dir` to this work tree's git folder without starting git (the index and ref shims).
FIND_DIR = """  if [ -n "${GIT_DIR:-}" ]; then
    dir="$GIT_DIR"
  elif [ -d .git ]; then
    dir=.git
  else # a linked work tree, a separate git dir: .git is a file naming the folder
    dir= && read -r dir 2>/dev/null <.git
    dir="${dir#gitdir: }"
  fi"""

INDEX_SHIM = """#!/bin/sh
{marker}: installed by `memidx hooks install`, removed by `memidx hooks uninstall`.
# Brings the memidx index to HEAD once git applies the autostash of `git pull --rebase
# --autostash` (or `merge --autostash`), after every other hook of the operation, never
# failing or blocking it; then runs the hook that was here before memidx
# ({stage}{chained}). git runs it at every write of its index: it decides in
# shell, and starts memidx only for that apply.
if [ "${{1:-}}" = 1 ] && [ -z "${{MEMIDX_INDEX_CHANGE:-}}" ]; then # the work tree changed
{find_dir}
  if [ -f "$dir/rebase-merge/autostash" ] || [ -f "$dir/rebase-apply/autostash" ] ||
    [ -f "$dir/MERGE_AUTOSTASH" ]; then
    head= && read -r head 2>/dev/null <"$dir/HEAD"
    case $head in
      ref:*) case "$(ps -o args= -p "$PPID" 2>/dev/null)" in
          *"git stash apply "* | *"git-stash apply "* | "") # "": no ps to tell
            export MEMIDX_INDEX_CHANGE=1 # the index writes of memidx's own git start nothing
            if [ -f hooks/memidx-hook ]; then
              sh hooks/memidx-hook hook {stage} </dev/null
            else
{no_hook}            fi ;;
        esac ;;
    esac
  fi
fi
{then_previous}"""
