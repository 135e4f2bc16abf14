"""The text of memidx's shims in git's hooks folder (memidx.githooks.install puts them there).

Each post-* shim runs `hooks/memidx-hook hook STAGE` (which never fails the git operation),
then the hook that was there before memidx, kept as `<stage>.pre-memidx`, with the same
arguments and input. The reference-transaction shim covers the HEAD moves no post-* hook
follows (`git reset`, `git rebase --abort`, `git am --abort`, `git update-ref`): git runs it
for every ref transaction, at three states, so it decides in shell, without starting Python,
and starts memidx only when HEAD moved in a committed transaction that no other hook will follow.
"""

from __future__ import annotations

from memidx.githooks.autostash_shim import FIND_DIR, INDEX_SHIM
from memidx.githooks.no_hook_shim import NO_HOOK_SCRIPT

MARKER = "# memidx-managed-hook"
# The stages memidx serves. post-applypatch: `git am` commits each patch without post-commit,
# so without it the index stayed behind HEAD and the drift check blocked the next commit.
STAGES = (
    "pre-commit",
    "commit-msg",  # a secret in the message is pushed with the commit
    "applypatch-msg",  # the same for `git am`, which runs no commit-msg
    "pre-push",  # what a plain `git push` sends: --no-verify commits, tags, git notes
    "post-commit",
    "post-merge",
    "post-checkout",
    "post-rewrite",
    "post-applypatch",
    "reference-transaction",  # git reset, rebase --abort, update-ref: no other hook follows
    "post-index-change",  # the autostash git applies after the last hook of a pull or rebase
)
# what makes a memory writable (memidx.index.trouble_hints.READONLY_HINT says it too)
CHECK_FOLDER = "check the permissions and the mount of its folder"
CHAINED = ".pre-memidx"

# memidx.locations.user_trace_dir in POSIX sh: where the hooks of the memory at $1 leave their
# traces when it cannot keep them (read-only, a full disk), for `memidx status`. The 64-bit
# FNV-1a of its path in two 32-bit halves, so no product overflows the shell's arithmetic.
# hooks/memidx-hook holds the same lines (tests/unit/test_shell_traces.py).
TRACE_DIR = """trace_dir() { # $XDG_STATE_HOME/memidx/traces/<name>-<FNV-1a of its path>
  state="${XDG_STATE_HOME:-}"
  case $state in
    /*) ;;
    *) [ -n "${HOME:-}" ] || return 1
      state="$HOME/.local/state" ;;
  esac
  set -- "$(cd "$1" 2>/dev/null && pwd -P || printf '%s' "$1")"
  hi=3421674724 lo=2216829733
  for byte in $(printf '%s' "$1" | od -An -v -tu1); do
    lo=$((lo ^ byte)) && low=$((lo * 435))
    hi=$(((hi * 435 + (low >> 32) + (lo << 8)) & 4294967295)) lo=$((low & 4294967295))
  done
  name="$(printf '%s' "${1##*/}" | LC_ALL=C tr -c 'A-Za-z0-9._-' _ | LC_ALL=C cut -c 1-40)"
  while [ "${name#.}" != "$name" ]; do name="${name#.}"; done
  printf '%s/memidx/traces/%s-%08x%08x\\n' "$state" "${name:-memory}" "$hi" "$lo"
}
"""

# a trace of memidx's own: a file or none (hooks/memidx-hook holds the same line). A FIFO there
# held `>>` for a reader for ever (the git operation hung); a link took the line into a file
# memidx does not own (memidx.index.failures refuses both)
OWN = """own() { [ ! -h "$1" ] && { [ -f "$1" ] || [ ! -e "$1" ]; }; }
state() { # made whole: a folder of this shell's, its .gitignore written, renamed into place
  [ -d "$1" ] && return 0; made="$1.$$.tmp" up="${1%/*}"; [ "$up" = "$1" ] && up=.
  { mkdir -p "$up" && { mkdir "$made" || [ -d "$made" ]; }; } 2>/dev/null || return 1
  printf '%s\\n' "$IGNORE_ALL" '*' >"$made/.gitignore" && { [ -e "$1" ] || [ -h "$1" ] ||
    mv "$made" "$1"; }; for made in "$made" "$1/${made##*/}"; do # not moved: its own alone
    [ -d "$made" ] && rm -f "$made/.gitignore" && rmdir "$made"; done; [ -d "$1" ]
} 2>/dev/null
IGNORE_ALL="# memidx's index and state: derived, never committed"
"""  # state(): .memidx made ignoring itself, as memidx.state_folder makes it

# the end of the post-* and pre-commit shims: the hook that was there before memidx, if any
THEN_PREVIOUS = """previous="$0{chained}"
if [ -x "$previous" ]; then
  exec "$previous" "$@"
fi
exit 0
"""

SHIM = """#!/bin/sh
{marker}: installed by `memidx hooks install`, removed by `memidx hooks uninstall`.
# Brings the memidx index to HEAD after `git {verb}` and never fails it, then runs the hook
# that was here before memidx ({stage}{chained}), if there is one.
if [ -f hooks/memidx-hook ]; then
  sh hooks/memidx-hook hook {stage} "$@" </dev/null
else # a checkout of a commit without it (an orphan branch): a trace for status and the checks
{no_hook}fi
{then_previous}"""

CHECKS_SHIM = """#!/bin/sh
{marker}: installed by `memidx hooks install`, removed by `memidx hooks uninstall`.
# {what}, then the hook that was here before memidx ({stage}{chained}).
if [ -f hooks/memidx-hook ]; then
  {command} </dev/null || exit $?
else
  printf 'memidx: %s: no hooks/memidx-hook in %s: the checks cannot run %s\\n' {stage} "$PWD" \\
    '(check out a commit that has it, or commit with --no-verify to skip the checks)' >&2
  exit 1
fi
{then_previous}"""
CHECKS = {  # what each blocking shim runs, and what that is
    "pre-commit": (
        'sh hooks/memidx-hook pre-commit "$@"',
        "Runs the checks of .pre-commit-config.yaml on the staged files (pre-commit run --files, "
        "which\n# never stashes unstaged changes)",
    ),
    # one process, not the framework's (~250 ms more, and it would stash unstaged changes)
    "commit-msg": (
        'sh hooks/memidx-hook check secrets --message "$1"',
        "Refuses a commit message that holds a secret\n# (memidx check secrets --message)",
    ),
    # `git am` commits each patch's message without commit-msg, `#` lines and all: no editor ran
    "applypatch-msg": (
        'GIT_EDITOR=: sh hooks/memidx-hook check secrets --message "$1"',
        "Refuses a patch whose message holds a secret\n# (memidx check secrets --message)",
    ),
}

# git (2.28 or later) runs this for every ref transaction: prepared, committed, aborted, with
# "<old> <new> <ref>" lines on stdin. A branch HEAD names comes with a HEAD line of its own.
# HEAD's reflog, written before the committed state, names the command: the ones another
# memidx hook follows are left to it (commit, merge, pull, checkout, rebase, cherry-pick,
# revert, am, checkout -B's "branch: Reset"), and memidx's own commits sync themselves.
# `git rebase --abort` points HEAD back at the branch without a HEAD line: its last
# transaction drops REBASE_HEAD, when the reflog already says "(abort)". `git am --abort`
# says "am --abort"; `git cherry-pick --abort` and `git revert --abort` run `git reset
# --merge` ("reset: moving to"). No reflog, no move.
REF_SHIM = """#!/bin/sh
{marker}: installed by `memidx hooks install`, removed by `memidx hooks uninstall`.
# Brings the memidx index to HEAD when a git command moves it and no other hook follows (`git
# reset`, `git rebase --abort`, `git update-ref`), never failing or blocking it, then runs the
# hook that was here before memidx ({stage}{chained}) with the same input.
previous="$0{chained}"
if [ "$1" != committed ]; then # prepared, aborted: nothing for memidx (its status is git's)
  [ -x "$previous" ] && exec "$previous" "$@"
  exit 0
fi
# the input read whole (appending line by line took minutes on a fetch of 30000 tags)
input="$(cat; echo .)" && input="${{input%.}}" moved= ended=
case $input in
  *" HEAD
"*) line="${{input%%" HEAD
"*}}" && line="${{line##*"
"}}" # "<old> <new>"
    if [ "${{line%% *}}" != "${{line#* }}" ]; then moved=HEAD; else ended=HEAD; fi ;;
esac
case $input in *" REBASE_HEAD
"*) moved="${{moved:-REBASE_HEAD}}" ;;
esac
if [ -n "$moved" ]; then # where this work tree's HEAD is, without starting git
{find_dir}
  head= && read -r head 2>/dev/null <"$dir/HEAD"
  case $moved:$head in
    REBASE_HEAD:ref:*) ;;    # HEAD back on its branch: the end of a rebase
    REBASE_HEAD:*) moved= ;; # a step of a rebase: its post-commit follows
  esac
fi
if [ -n "$moved" ]; then
  last="$(tail -n 1 "$dir/logs/HEAD" 2>/dev/null)"
  case $last in # the reflog message follows the line's only tab; `update-ref` without -m: none
    *"	"*) what="${{last#*	}}" ;;
    *) what= ;;
  esac
  case $moved:$what in
    *"(abort)"* | "HEAD:am --abort") ;; # HEAD back where the patches began ("am: <subject>")
    REBASE_HEAD:*) moved= ;;
    HEAD:commit* | HEAD:merge* | HEAD:pull* | HEAD:checkout:* | HEAD:rebase* | HEAD:am* | \\
      HEAD:cherry-pick* | HEAD:revert* | HEAD:branch:* | HEAD:memidx*) moved= ;;
  esac
  [ -n "$last" ] || moved= # no reflog (core.logAllRefUpdates): as before, until memidx sync
  case ${{last%% *}} in # git's input has 0{{40}} for an old value not given (update-ref): its
    *[!0]*) ;;          # reflog's is HEAD's own; none: a new work tree's first HEAD, written
    *) moved= ;;        # before its files, and its post-checkout follows (worktree add)
  esac
fi
# a stopped cherry-pick, revert or am ended (--abort, --skip, --quit): no post-* hook follows;
# a note left pending past its finisher's limit waits for another one. HEAD written where it
# was (ended=HEAD above): `git am --abort`, while its rebase-apply/ is there; `git reset` and
# `git stash` write it so too, and started memidx, mid-command, while a note was pending
case $input in
  *"0000000000 CHERRY_PICK_HEAD
"* | *"0000000000 REVERT_HEAD
"* | *"0000000000 REBASE_HEAD
"*) ended=1 ;; # its pseudo-ref deleted (REBASE_HEAD: `git am --skip` of the last patch)
esac
if [ -n "$ended" ]; then # entries in the git folder (an older memidx's in .memidx/)
{find_dir}
  same=$ended ended=
  for entry in "$dir"/memidx/pending-notes/[0-9]*.json .memidx/pending-notes/[0-9]*.json; do
    [ -e "$entry" ] && ended=1 && break
  done
fi
if [ -n "$ended" ] && [ "$same" = HEAD ]; then # `dir` found above
  [ -d "$dir/rebase-apply" ] || ended= # an am's --abort, before its folder goes
fi
if [ -n "$moved" ] || [ -n "$ended" ]; then
  if [ -f hooks/memidx-hook ]; then
    MEMIDX_GIT_ENDED="$ended" sh hooks/memidx-hook hook {stage} </dev/null
  else
{no_hook}  fi
fi
if [ -x "$previous" ]; then
  printf '%s' "$input" 2>/dev/null | "$previous" "$@"
fi
exit 0
"""

# git runs it before a push with the remote's name and URL as arguments and one "<local ref>
# <local oid> <remote ref> <remote oid>" line per ref on stdin; a status other than 0 stops
# the push. The input is read whole: memidx's check and the hook chained both get it (git runs
# hooks with SIGPIPE ignored: one that reads none of it made printf say "I/O error").
PUSH_SHIM = """#!/bin/sh
{marker}: installed by `memidx hooks install`, removed by `memidx hooks uninstall`.
# Refuses a push that sends a secret (memidx check secrets --push: the messages and notes of
# the commits it sends, annotated tags, git notes), then runs the hook that was here before
# memidx ({stage}{chained}) with the same arguments and input.
input="$(cat; echo .)" && input="${{input%.}}"
if [ -f hooks/memidx-hook ]; then
  printf '%s' "$input" 2>/dev/null | sh hooks/memidx-hook check secrets --push "$1" || exit $?
else
  printf 'memidx: %s: no hooks/memidx-hook in %s: the checks cannot run %s\\n' {stage} "$PWD" \\
    '(check out a commit that has it, or push with --no-verify to skip the checks)' >&2
  exit 1
fi
previous="$0{chained}"
if [ -x "$previous" ]; then
  printf '%s' "$input" 2>/dev/null | "$previous" "$@"
  exit $?
fi
exit 0
"""

VERBS = {
    "post-commit": "commit",
    "post-merge": "merge",
    "post-checkout": "checkout",
    "post-rewrite": "commit --amend` or `git rebase",
    "post-applypatch": "am",
}


def shim(stage: str) -> str:
    """The text of memidx's shim for `stage`."""
    then_previous = THEN_PREVIOUS.format(chained=CHAINED)
    if stage in CHECKS:
        command, what = CHECKS[stage]
        return CHECKS_SHIM.format(
            marker=MARKER,
            what=what,
            stage=stage,
            chained=CHAINED,
            command=command,
            then_previous=then_previous,
        )
    no_hook = _indented(TRACE_DIR + OWN, "  ")
    no_hook += NO_HOOK_SCRIPT.format(stage=stage, check=CHECK_FOLDER)
    if stage == "pre-push":
        return PUSH_SHIM.format(marker=MARKER, stage=stage, chained=CHAINED)
    if stage == "post-index-change":
        return INDEX_SHIM.format(
            marker=MARKER, stage=stage, chained=CHAINED, no_hook=_indented(no_hook, " " * 12),
            then_previous=then_previous, find_dir=FIND_DIR,
        )  # fmt: skip
    if stage == "reference-transaction":
        return REF_SHIM.format(
            marker=MARKER,
            stage=stage,
            chained=CHAINED,
            no_hook=_indented(no_hook, "  "),
            find_dir=FIND_DIR,
        )
    return SHIM.format(
        marker=MARKER,
        verb=VERBS[stage],
        stage=stage,
        chained=CHAINED,
        no_hook=no_hook,
        then_previous=then_previous,
    )


def _indented(text: str, indent: str) -> str:
    return "".join(f"{indent}{line}\n" for line in text.splitlines())
