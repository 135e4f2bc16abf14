"""The post-* shims' lines for a checkout without hooks/memidx-hook (memidx.githooks.shims):
nothing to run there, so they say so, and what to run, and leave a trace for status and the
checks."""

from __future__ import annotations

# an orphan branch, an old commit: no hooks/memidx-hook to run; a trace for status and checks,
# in the user's state folder when the memory cannot keep it (or keeps a link or a FIFO there)
# (reconcile fails as the hook would on a memory that cannot be written: that first). `make
# reconcile` only where the checkout's Makefile has that rule (memidx.remedies): such a
# checkout mostly lacks memidx's Makefile too ("No rule to make target 'reconcile'"); a line
# read alone, a variable's list continued onto `reconcile: x` was taken for that rule
# The work tree removed under git (its folder gone while `git commit --amend` ran its
# post-commit hook, then its post-rewrite) is said so, not "no hooks/memidx-hook in : ...",
# and traced where memidx's own hook traces it then; a folder at the path git's file names is
# another (a worktree moved by `mv`, its file not repaired): neither named nor traced. (dash's
# `pwd -P` fails with status 0, printing nothing; the `.` keeps a name's own trailing newline.)
NO_HOOK_SCRIPT = """  here="$(pwd -P 2>/dev/null && echo .)" || here=
  here="${{here%.}}" && here="${{here%?}}" # pwd's own newline off, none of the name's
  if [ ! -d "$here" ]; then # its folder gone: its path from git's folder of the work tree
    gone="$(cat "${{GIT_DIR:-.git}}/gitdir" 2>/dev/null)" || gone=
    gone="${{gone%/.git}}" && [ ! -e "$gone" ] || gone= # there: a worktree moved, not gone
    said="the memory's folder ${{gone:-(the work tree)}} is gone"
    printf 'memidx: %s: %s (deleted or moved away): index not updated %s\\n' {stage} "$said" \\
      '(restore the folder, or clone the memory again)' >&2
    line="$(printf '%s\\t%s\\t%s' "$(date -u +%Y-%m-%dT%H:%M:%S+00:00)" {stage} "$said")"
    [ -n "$gone" ] && {{ dir="$(trace_dir "$gone")" && mkdir -p "$dir" &&
      own "$dir/hook-error.log" && printf '%s\\n' "$line" >>"$dir/hook-error.log"; }} 2>/dev/null
  else
    said="no hooks/memidx-hook in $PWD: index not updated"
    todo="memidx reconcile --fix" w='[^:#=[:blank:]]+' b='[[:blank:]]'
    for made in GNUmakefile makefile Makefile; do # the one make reads: a rule, no variable
      [ -f "$made" ] || continue # its lines continued (`\\`, newline) joined, as make reads them
      awk '{{ if (sub(/\\\\$/, "")) {{ printf "%s ", $0; next }} print }}' "$made" 2>/dev/null |
        grep -Eqs "^($w$b+)*reconcile($b+$w)*$b*::?([^=]|\\$)" && todo="make reconcile"
      break
    done
    if [ ! -w . ] || {{ [ -e .memidx ] && [ ! -w .memidx ]; }}; then
      todo="make the memory writable ({check}), then run $todo"
    else
      todo="run $todo"
    fi
    printf 'memidx: %s: %s (%s)\\n' {stage} "$said" "$todo" >&2
    line="$(printf '%s\\t%s\\t%s' "$(date -u +%Y-%m-%dT%H:%M:%S+00:00)" {stage} "$said")"
    {{ state .memidx && own .memidx/hook-error.log &&
      printf '%s\\n' "$line" >>.memidx/hook-error.log; }} 2>/dev/null ||
      {{ dir="$(trace_dir "$PWD")" && mkdir -p "$dir" && own "$dir/hook-error.log" &&
        printf '%s\\n' "$line" >>"$dir/hook-error.log"; }} 2>/dev/null
  fi
"""
