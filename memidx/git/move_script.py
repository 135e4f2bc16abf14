"""The shell scripts memidx.git.publish.move_head runs as one child process: `git update-ref
--stdin` (the move, which memidx drives through the script's input), then the git command
that must follow it, which runs even when memidx is killed in between.

A person's `git commit` must never see HEAD moved and the index not yet: it commits the index
as it was on top of the new commit, reverting it (share's merge: without the other clone's
notes, and share pushed that commit, which deleted them from the remote; remember's: without
the remembered note). So, as git's own merge does, memidx takes `.git/index.lock` before the move
(take_index_lock, while git holds HEAD's lock), the script brings a copy of the index to the
new commit (`GIT_INDEX_FILE`, the work tree following; the copy keeps the index's time, by
which git tells a file changed in the second of its add: a copy dated now hid such a change
from `git diff` and `git commit -a`), renames that copy over the index and
only then lets the lock go: a person's git that wants the index meanwhile is refused at once
("index.lock: File exists"), as during any git merge. When the command fails, the index
stays as it was (share's HEAD goes back); in every case the lock goes, and only when it is
still the one memidx took."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from memidx.git.index_refresh import SHELL_FRESH

FAILED = "memidx: the command run with the move failed"
# $1 the reflog message, $2 the new commit, $3 the commit it was built on, $4 the git dir,
# $5 the work tree's files to write or delete (move_lines), $6 memidx's python (leave),
COPY = "memidx-follow-index"  # in the git folder: the index the git command runs on
# then the git command to run once HEAD is there (index_token: what memidx wrote in
# index.lock, this shell's pid in it), on a
# copy of the index that replaces it once the command did its work (update-ref's answers go
# to memidx; its exit status does not tell a commit from an abort)
# the files `leave` moves aside, each `<blob> <path>` line of its input (`.<name>.memidx-<pid>`
# beside it, made for it first: O_EXCL, as `set -C`), the lines of those moved on its output;
# no single quote in it (the shell quotes it so)
_MOVE = """import os, sys
pid = sys.argv[1].encode()
for line in sys.stdin.buffer.read().split(b"\\n"):
    path = line.partition(b" ")[2]
    if not path:
        continue
    folder, _, name = path.rpartition(b"/")
    aside = (folder + b"/" if folder else b"") + b"." + name + b".memidx-" + pid
    try:
        if os.path.lexists(aside):
            continue
        os.rename(path, aside)
    except OSError:
        continue
    sys.stdout.buffer.write(line + b"\\n")
"""
_FOLLOW = (
    # (memidx follows the move itself the moment HEAD's ref shows it, memidx.git.move_follow:
    # what follows runs when memidx was killed first, or its own follow could not be done)
    # the work tree once git's index follows ($5: a line per file, move_lines): `+ <path>` is
    # written from the index where nothing is; `<blob> <path>`, committed as deleted, removed
    # only while it is still that blob byte for byte (an edit since is the person's). One git
    # per kind for all the files, one rm, one rmdir: a git, rm and rmdir per file held the
    # lock 250 ms (median) for a share that moved 50 twins (load 9, 2 cores); now 16 ms. Each
    # such file is moved aside first (`.<name>.memidx-<pid>`, made for it: set -C), hashed
    # there and removed, or linked back (never over a file saved at its path since, which
    # stays, as memidx.git.judged_unlink does): hashed at its path, then removed, an edit saved
    # in between was deleted with it. One that cannot be moved aside is left for the caller.
    # That mv per file cost what the batching saved (50 files: the killed move's shell ran
    # 726 ms, 103 ms with none left; median of 5, load ~22): one python moves them all now
    # (247 ms), each to a name nothing is at (a rename over the place made for it, as `set -C`
    # made it, had ext4 write each file out: ~3.5 ms a file); only this shell names them so
    'aside() { case $1 in */*) a="${1%/*}/.${1##*/}.memidx-$$";; *) a=".$1.memidx-$$";; esac; }; '
    # (set -C for the whole subshell: its place made in the shell itself, no process per file)
    # (a file it deletes already gone: memidx's own follow deleted it, killed before it removed
    # the folder that left empty; that folder goes at the end, when still empty)
    'leave() { printf "%s\\n" "$gone" | ( set -C; set --; add= cand= todo= nl="\n"; '
    'while IFS= read -r line; do p=${line#* }; case $line in "") ;; "+ "*) add=$add$p$nl;; '
    '*) { [ -f "$p" ] && [ ! -L "$p" ]; } || { [ -e "$p" ] || [ -h "$p" ] || '
    'case $p in */*) set -- "$@" "${p%/*}";; esac; continue; }; '
    'todo=$todo$line$nl;; esac; done; [ -z "$todo" ] || { '
    # one python ($6, memidx's) moves them all aside, saying each line it moved; where it
    # cannot run (its exit status), an mv per file, as before
    f'moved=$(printf "%s" "$todo" | "$py" -S -I -c \'{_MOVE}\' "$$" 2>/dev/null) || {{ '
    'f=$(printf "%s" "$todo" | while IFS= read -r line; do p=${line#* }; '
    '{ [ -f "$p" ] && [ ! -L "$p" ]; } || continue; aside "$p"; '
    '{ :; } 2>/dev/null >"$a" || continue; if mv -f -- "$p" "$a" 2>/dev/null; then '
    'printf "%s\\n" "$line"; else rm -f -- "$a"; fi; done); moved=${moved:+$moved${f:+$nl}}$f; }; '
    '[ -z "$moved" ] || cand=$moved$nl; }; '
    '[ -z "$add" ] || printf "%s" "$add" | GIT_INDEX_FILE=$copy git checkout-index -q --stdin '
    '2>/dev/null; [ -z "$cand" ] || printf "%s" "$cand" | ( blobs=$(printf "%s" "$cand" | '
    'while IFS= read -r line; do aside "${line#* }"; printf "%s\\n" "$a"; done | '
    "git hash-object --no-filters --stdin-paths 2>/dev/null)$nl; set --; "
    'while IFS= read -r line; do b=${blobs%%"$nl"*}; blobs=${blobs#*"$nl"}; p=${line#* }; '
    'aside "$p"; if [ "$b" = "${line%% *}" ] && [ ! -h "$a" ]; then set -- "$@" "$a"; '
    'elif ln -- "$a" "$p" 2>/dev/null; then rm -f -- "$a"; '
    'elif [ ! -e "$p" ] && [ ! -h "$p" ]; then mv -f -- "$a" "$p"; fi; done; '
    '[ $# = 0 ] || { rm -f -- "$@"; for p in "$@"; do shift; set -- "$@" "${p%/*}"; done; '
    'rmdir -p -- "$@" 2>/dev/null; }; ); [ $# = 0 ] || rmdir -p -- "$@" 2>/dev/null; ); }; '
    # `over`: the new bytes over the old ones, each `<old blob> <path>` line of its input: the
    # file moved aside and judged there, as `leave` does (hashed at its path, then written
    # over with `checkout-index -f`, an edit saved in between was lost), written where nothing
    # is once it held the old bytes, else linked back (a file saved at its path since stays)
    'over() { m=$(while IFS= read -r line; do r=${line#* }; aside "$r"; '
    '{ [ -f "$r" ] && [ ! -h "$r" ] && [ ! -e "$a" ] && [ ! -h "$a" ]; } || continue; '
    'mv -f -- "$r" "$a" 2>/dev/null && printf "%s\\n" "$line"; done); [ -n "$m" ] || return 0; '
    'h=$(printf "%s\\n" "$m" | while IFS= read -r line; do aside "${line#* }"; '
    'printf "%s\\n" "$a"; done | git hash-object --no-filters --stdin-paths 2>/dev/null)$nl; '
    'printf "%s\\n" "$m" | { set --; v=; while IFS= read -r line; do y=${h%%"$nl"*}; '
    'h=${h#*"$nl"}; r=${line#* }; aside "$r"; if [ "$y" = "${line%% *}" ] && [ ! -h "$a" ]; '
    'then set -- "$@" "$a"; v=$v$r$nl; elif ln -- "$a" "$r" 2>/dev/null; then rm -f -- "$a"; '
    'elif [ ! -e "$r" ] && [ ! -h "$r" ]; then mv -f -- "$a" "$r"; fi; done; [ -z "$v" ] || '
    'printf "%s" "$v" | GIT_INDEX_FILE=$copy git checkout-index -q -u --stdin 2>/dev/null; '
    '[ $# = 0 ] || rm -f -- "$@"; }; }; '
    # the git command on the copy; a `checkout <new> -- <paths>` (notes written from memory)
    # run as a `reset` of those paths, git's index alone, their files then written where
    # nothing is, or over the very bytes $old held there (a purge's rewrite): memidx's own
    # follow (or its fast path) wrote the note before it was killed, and `git checkout` wrote
    # it again over an edit the person saved since (hashed: other bytes stay, an unstaged change)
    # (`fresh`: the entries of the paths a reset wrote given their stat, those alone: git 2.36's
    # reset refreshes the whole index, which memidx.git.index_refresh skips up to REFRESH_MOST)
    f"{SHELL_FRESH}"
    'redo() { w= nl="\n"; for r do shift; case $w$r in checkout) w=1 r=reset;; esac; '
    'set -- "$@" "$r"; done; GIT_INDEX_FILE=$copy git "$@" || return 1; fresh "$@"; '
    '[ -n "$w" ] || return 0; '
    'for r do shift; case $w$r in 1--) w=2;; 2*) set -- "$@" "$r";; esac; done; '
    '[ $# != 0 ] || return 0; GIT_INDEX_FILE=$copy git ls-files -z -- "$@" 2>/dev/null | '
    "GIT_INDEX_FILE=$copy git checkout-index -q -u -z --stdin 2>/dev/null; "
    'GIT_INDEX_FILE=$copy git -c core.quotePath=false ls-files -- "$@" 2>/dev/null | { o=; '
    'while IFS= read -r r; do case $r in \\"*) ;; *) [ ! -f "$r" ] || [ -h "$r" ] || o=$o$r$nl;; '
    'esac; done; [ -z "$o" ] || printf "%s" "$o" | { b=$(printf "%s" "$o" | '
    'while IFS= read -r r; do printf "%s\\n" "$old:$r"; done | '
    'git cat-file --batch-check="%(objectname)" 2>/dev/null)$nl; '
    'h=$(git hash-object --no-filters --stdin-paths 2>/dev/null)$nl; printf "%s" "$o" | '
    'while IFS= read -r r; do x=${b%%"$nl"*}; b=${b#*"$nl"}; y=${h%%"$nl"*}; h=${h#*"$nl"}; '
    '[ -z "$x" ] || [ "$x" != "$y" ] || printf "%s %s\\n" "$x" "$r"; done | over; }; }; '
    "return 0; }; "
    'git update-ref -m "$1" --stdin; '
    'said=$1 new=$2 old=$3 dir=$4 gone=$5 py=$6 token="memidx $$ $2"; shift 6; '
    f"lock=$dir/index.lock; copy=$dir/{COPY}; "
    # the lock read by the shell itself: `$(cat ...)` cost a process (~2-5 ms under load) at
    # each of three looks while the lock was held
    'mine() { held=; { IFS= read -r held || :; } 2>/dev/null <"$lock" && '
    '[ "$held" = "$token" ]; }; '
    # where HEAD is: its branch's file read by the shell (a loose ref: update-ref wrote it),
    # else git asked (detached, a linked work tree's, reftable: a process, ~3-8 ms under load)
    'at=; { read -r at || :; } 2>/dev/null <"$dir/HEAD"; '
    'case $at in "ref: refs/"*) { read -r at || :; } 2>/dev/null <"$dir/${at#ref: }";; esac; '
    'if [ "$at" != "$new" ] && [ "$(git rev-parse -q --verify HEAD)" != "$new" ]; then '
    'if mine; then rm -f "$copy" "$lock"; fi; exit 0; fi; '
    # HEAD moved and the lock not this shell's: memidx did the follow itself and let it go
    # (index_swap; another git may hold it by now): done. share's went back (THEN_OR_BACK)
    "mine || exit 0; "
    # memidx killed as its own follow's git ran on its copy (move_follow: `-<memidx's pid>`):
    # that git, its child, runs on, and wrote the note again once this follow was done and
    # the lock let go, over an edit saved since; waited for while it runs (its pid beside the
    # copy: its lock alone, left by a git killed with memidx, held index.lock 10 s), else
    # while that lock is there (memidx killed before it wrote the pid); 10 s at most, at no
    # cost when there is none
    f'own=$dir/{COPY}-$PPID g=; {{ read -r g || :; }} 2>/dev/null <"$own.git"; '
    'case $g in *[!0-9]*) g=;; esac; n=0; while [ $n -lt 200 ] && if [ -n "$g" ]; then '
    'kill -0 "$g" 2>/dev/null; else [ -e "$own.lock" ]; fi; do sleep 0.05; n=$((n + 1)); done; '
    # a killed shell's copy's lock: the copy is memidx's while it holds the lock
    '[ ! -e "$copy.lock" ] || { mine && rm -f "$copy.lock"; }; '
    # the copy memidx made (copy_index) once HEAD moved, its lock let go, else one made here
    'if mine && { [ -e "$copy" ] || [ ! -e "$dir/index" ] || cp -p "$dir/index" "$copy"; } && '
    'redo "$@" && { leave; mv -f "$copy" "$dir/index"; }; then '
    'rm -f "$lock"; exit 0; fi; '
    'rm -f "$copy"; '
)
THEN = _FOLLOW + 'mine && rm -f "$lock"; exit 1'
# the same, and when that git command fails, HEAD goes back to $3 (from $2): share's merge,
# whose work tree and index did not follow the move, is undone rather than left half made
THEN_OR_BACK = (
    _FOLLOW + 'git update-ref -m "$said (undone)" HEAD "$old" "$new"; '
    f'mine && rm -f "$lock"; echo "{FAILED}" >&2'
)


def move_lines(
    root: Path,
    gone: Mapping[str, bytes | None],
    written: Sequence[str],
    *,
    written_by_then: bool = False,
) -> str:
    """The script's $5: `+ <path>` per path of `written` (checked out where nothing is), and
    `<blob> <path>` per path of `gone` (committed as deleted) whose file the caller judged (its
    bytes; None: no file was), the blob id of exactly those bytes (no filter), so the script
    deletes the file only while it is still them. A path with a line break is left to the
    caller, which writes or compares the bytes itself once the move is done.
    `written_by_then`: the git command writes `written` itself (share's `read-tree -u`), so
    none of them is judged: judged after it, a note the merge rewrote held the merge's bytes,
    not those judged, and was kept beside it as `.<name>.memidx-<pid>`."""
    import subprocess

    lines = [f"+ {path}" for path in written if "\n" not in path]
    for path, judged in gone.items():
        if judged is None or "\n" in path or (written_by_then and path in written):
            continue
        argv = ["git", "hash-object", "--no-filters", "--stdin"]
        done = subprocess.run(argv, cwd=root, input=judged, capture_output=True, check=False)
        if done.returncode == 0:
            lines.append(f"{done.stdout.decode().strip()} {path}")
    return "\n".join(lines)


def index_token(pid: int, new: str) -> str:
    """What memidx writes in the index.lock it takes for the move to `new`: the pid of the
    shell that lets it go (memidx.git.lock_holders reads it: no git may run for an instant
    while the shell holds it, which is no lock a killed git left)."""
    return f"memidx {pid} {new}"


def held_by_memidx(lock: Path) -> bool:
    """Whether `lock` is one memidx took and the process that lets it go (the shell, or memidx
    itself for a copy's rename) still runs: its pid, started before the lock was made (a pid
    given again since made a killed memidx's lock look held for good; Linux tells)."""
    from memidx.process_start import made_at, owner_gone

    try:
        with lock.open("rb") as file:
            said = file.read(128).split()
        made = made_at(lock)
    except OSError:
        return False
    pid = said[1].decode(errors="replace") if len(said) == 3 and said[0] == b"memidx" else ""
    return pid.isdigit() and not owner_gone(int(pid), made)


def take_index_lock(git_dir: Path, token: str) -> bool:
    """Take git's index lock as git does (created, never opened if it exists), `token` in it;
    False when another git holds it."""
    from memidx.git import move_trace as trace
    from memidx.git.index_copy import remove_dead_copies
    from memidx.process_start import note_clock

    note_clock()  # before a lock naming a pid: a clock step since keeps it (owner_gone)
    remove_dead_copies(git_dir)  # and what a killed memidx's judge of a lock left aside
    try:
        held = os.open(git_dir / "index.lock", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        return False
    try:
        os.write(held, token.encode())
    except OSError:  # a full disk: the lock, left empty, no shell would ever let go of
        (git_dir / "index.lock").unlink(missing_ok=True)
        raise
    finally:
        os.close(held)
    trace.mark("locked")
    return True


def let_go(git_dir: Path, token: str, aside: tuple[Path, Iterable[str], int] | None = None) -> None:
    """Remove the index.lock memidx took (`token` in it) once the shell that lets it go has
    ended: a shell killed before its end left it, and every git of the person was refused
    ("index.lock: File exists") until they removed it by hand. `aside`: the work tree, the
    files the move deletes and the shell's pid, whose files left aside are put right
    (memidx.git.killed_edit.shell_asides_back)."""
    if aside is not None:
        from memidx.git.killed_edit import shell_asides_back

        shell_asides_back(*aside)
    lock = git_dir / "index.lock"
    try:
        if lock.read_bytes() == token.encode():
            lock.unlink()
    except OSError:
        return


def copy_index(git_dir: Path) -> None:
    """Copy git's index for the move's git command (its time kept: racy git), while memidx
    holds index.lock, once HEAD moved and before the shell's update-ref sees its input end:
    the shell's `cp` was one process more in the instant the lock refuses a person's git
    (~1-5 ms median, ~28 ms p90 at a load of ~25). Not while git holds HEAD's lock: a 34 MB
    index (400,000 files) held it 41-84 ms more, where another git waits 100 ms at most. No
    copy where there is no index; none (the shell makes its own) when it could not be made.
    Made under a name of this process's and renamed once whole: made at COPY, which the shell
    takes as made whole, a memidx killed part way left the shell half an index, on which
    share's merge failed (moved back) and git's read-tree dropped the entries it lacked."""
    import shutil  # not on the hook path

    copy, part = git_dir / COPY, git_dir / f"{COPY}-{os.getpid()}"  # a dead one's: index_copy
    try:
        copy.unlink(missing_ok=True)  # a killed shell's
        if (git_dir / "index").exists():
            shutil.copy2(git_dir / "index", part)
            part.replace(copy)
    except OSError:  # half made: the shell copies the index itself
        try:
            part.unlink(missing_ok=True)
            copy.unlink(missing_ok=True)
        except OSError:
            return
