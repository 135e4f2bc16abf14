"""A change to one entry of git's index that stands only if git's index still says what memidx
looked at.

memidx looked at git's index (`git ls-files`), then changed it (`git update-index`): a person's
`git add` in between was written over (the put-back of a note a switch back brought home: the
person's staged file undone, `git status` ` M`). Then a shell took `.git/index.lock` for the
look and the change (four to six git processes: 20-60 ms at a load of ~20, each `git add`,
`commit`, `switch` or `stash` of the person's in it refused at once, "index.lock: File
exists"). Now a shell in a session of its own looks at and changes a copy of the index, git's
index held by a hard link, and takes `.git/index.lock` as git does (created, never opened if
it exists: set -C) only to check that git's index is still the file it copied and rename the
copy over it; when it is not (a person's `git add` meanwhile), nothing is changed and memidx
looks again (HELD). memidx killed meanwhile leaves no lock (the shell ends its work alone)."""

from __future__ import annotations

import subprocess
from pathlib import Path

HELD = 3  # another git holds git's index, or changed it meanwhile: wait and try again
STAGED = 2  # git's index holds an entry at the path now: whoever staged it decides
KEPT = 4  # HEAD holds the path, or its file is no longer what memidx committed: left as it is
_COPY = "memidx-edit-index"  # the copy of git's index the change is made in, `-<pid>` after it
# $1 the path, $2 the blob, $3 the git dir: git's index held by a hard link at `<copy>.seen`
# (its inode is not reused meanwhile) and copied (its times kept: racy git), the look
# and the change made on the copy, which `swap` renames over the index under index.lock while
# the index is still the file held (git writes a new index by renaming its lock over it)
_LOCK = (
    f'dir=$3 lock=$3/index.lock copy=$3/{_COPY}-$$ seen=$3/{_COPY}-$$.seen token="memidx $$ $2"; '
    'mine() { [ "$(cat "$lock" 2>/dev/null)" = "$token" ]; }; '
    'trap \'rm -f "$copy" "$copy.lock" "$seen"; mine && rm -f "$lock"\' EXIT; '
    'rm -f "$copy" "$copy.lock" "$seen"; linked=; if [ -e "$dir/index" ]; then '
    'if ln "$dir/index" "$seen" 2>/dev/null; then linked=1; '
    'else cp -p "$dir/index" "$seen" || exit 1; fi; cp -p "$seen" "$copy" || exit 1; fi; '
    'export GIT_INDEX_FILE="$copy"; '
    'same() { if [ ! -e "$seen" ]; then [ ! -e "$dir/index" ]; '
    'elif [ -n "$linked" ]; then [ "$dir/index" -ef "$seen" ]; '
    'else cmp -s "$dir/index" "$seen"; fi; }; '
    'entry=$(git ls-files -s -- ":(literal)$1" | cut -d" " -f2); '
    'edit() { git "$@"; }; '
    # the lock taken as git takes it (set -C: created, never opened if it exists), for the
    # look at the index and the rename alone
    f'swap() {{ ( set -C; printf %s "$token" >"$lock" ) 2>/dev/null || {{ [ -e "$lock" ] && '
    f'return {HELD}; ( set -C; : >"$lock" ) || return 1; rm -f "$lock"; return {HELD}; }}; '
    # no copy: there was no index and nothing was changed (a take-out of the file alone):
    # none to rename (its failed rename was HELD, tried again until memidx's deadline)
    f'if same && {{ [ ! -e "$copy" ] || mv -f "$copy" "$dir/index"; }}; then '
    f'rm -f "$lock"; return 0; fi; '
    f'rm -f "$lock"; return {HELD}; }}; '
)
# $1 the path, $2 HEAD's blob there, $3 the git dir, $4 its mode: HEAD's entry put back where
# git's index holds none
_PUT_BACK = _LOCK + (
    f'[ -z "$entry" ] || exit {STAGED}; '
    'edit update-index --add --cacheinfo "$4,$2,$1" || exit 1; swap; exit $?'
)
# $1 the path, $2 the blob memidx committed there, $3 the git dir: the entry of
# that blob and the file byte for byte that blob taken out, HEAD holding nothing there (a
# switch took them along to a branch that does not hold memidx's commit); its entry alone when
# the file is gone. The file is moved aside (a rename) before it is read: an editor's save
# after that look was deleted with it, and one now writes a file of its own at the path, which
# stays. Aside it is `.<name>.memidx-<pid>`, as memidx.memory.pending_elsewhere names its own:
# one a killed shell left (`.memidx-taken-out-<pid>` before, named nowhere, `git add -A` took
# it) is in `status`. git's index changed before the swap: the file goes back, HELD
_TAKE_OUT = _LOCK + (
    f'if [ -n "$entry" ] && [ "$entry" != "$2" ]; then exit {STAGED}; fi; '
    f'git rev-parse -q --verify "HEAD:$1" >/dev/null && exit {KEPT}; '
    'if [ -n "$entry" ] && [ ! -e "$1" ] && [ ! -h "$1" ]; then '
    'edit update-index --force-remove -- "$1" || exit 1; swap; exit $?; fi; '
    f'{{ [ ! -h "$1" ] && [ -f "$1" ]; }} || exit {KEPT}; '
    'case $1 in */*) aside="${1%/*}/.${1##*/}.memidx-$$" ;; *) aside=".$1.memidx-$$" ;; esac; '
    f'( set -C; : >"$aside" ) 2>/dev/null || exit {KEPT}; '  # its place, never over another
    f'mv -f -- "$1" "$aside" || {{ rm -f -- "$aside"; exit {KEPT}; }}; '
    'if [ "$(git hash-object --path="$1" -- "$aside")" != "$2" ]; then '  # edited: back, as it is
    f'ln -- "$aside" "$1" 2>/dev/null && rm -f -- "$aside"; exit {KEPT}; fi; '
    # no entry: the swap all the same, so that a `git add` of the file since the look is seen
    'if [ -n "$entry" ] && ! edit update-index --force-remove -- "$1"; then ended=1; '
    'else swap; ended=$?; fi; if [ "$ended" != 0 ]; then ln -- "$aside" "$1" 2>/dev/null; fi; '
    'rm -f -- "$aside"; exit $ended'
)


def put_back_entry(root: Path, git_dir: Path, path: str, mode: str, blob: str) -> tuple[int, str]:
    """Put `blob` at `path` in git's index when it holds no entry there: 0 when done, STAGED
    when one is there, HELD when another git holds the index, else git's failure (1); with
    the last line git wrote to stderr ("" when none)."""
    from memidx.children import SHELL

    if SHELL is None:  # no POSIX shell (Windows): the look and the change one after the other
        return _put_back_unlocked(root, path, mode, blob)
    put, said = _locked(_PUT_BACK, root, path, blob, git_dir, mode)
    return put, _named(said, git_dir)


def take_out_entry(root: Path, git_dir: Path, path: str, blob: str) -> tuple[int, str]:
    """Take `path` out of git's index and the work tree when git's index holds `blob` there
    (or nothing), the file is that blob byte for byte (or gone: the entry alone) and HEAD
    holds nothing there: 0 when done, STAGED (a person's own entry), KEPT, HELD, else git's
    failure (1); with the last line git wrote to stderr ("" when none)."""
    from memidx.children import SHELL

    assert SHELL is not None  # index_follow takes out with git's own commands where none is
    taken, said = _locked(_TAKE_OUT, root, path, blob, git_dir)
    return taken, _named(said, git_dir)


def _named(said: str, git_dir: Path) -> str:
    """git's words about the shell's copy, of the index it copied (not the copy's hold)."""
    import re

    from memidx.git.index_copy import remove_dead_copies

    remove_dead_copies(git_dir)  # a shell killed with `kill -9` left its copy
    copy = re.escape(str(git_dir / _COPY)) + r"-[0-9]+(?![.\w-])"
    return re.sub(copy, str(git_dir / "index").replace("\\", "\\\\"), said)


def _locked(script: str, root: Path, *args: str | Path) -> tuple[int, str]:
    """Run `script` (one of _LOCK's) in a shell of its own session: memidx killed, it ends
    its work and lets git's index go. Its status, and the last line of its stderr (a file,
    no pipe that a killed memidx closes under it)."""
    import tempfile

    from memidx.children import SHELL, run_in_session
    from memidx.process_start import note_clock

    note_clock()  # before the shell names its lock, copy and file aside by its pid
    argv = [str(SHELL), "-c", script, "memidx", *map(str, args)]
    with tempfile.TemporaryFile() as errors:
        status = run_in_session(argv, root, errors)
        errors.seek(0)
        return status, _last_line(errors.read())


def _last_line(said: bytes) -> str:
    lines = said.decode("utf-8", "replace").strip().splitlines()
    return lines[-1].strip() if lines else ""


def _put_back_unlocked(root: Path, path: str, mode: str, blob: str) -> tuple[int, str]:
    look = ["git", "ls-files", "-s", "--", f":(literal){path}"]
    if subprocess.run(look, cwd=root, capture_output=True, check=False).stdout.strip():
        return STAGED, ""
    put = ["git", "update-index", "--add", "--cacheinfo", f"{mode},{blob},{path}"]
    done = subprocess.run(put, cwd=root, capture_output=True, check=False)
    held = done.returncode and b"index.lock" in done.stderr
    return (HELD if held else done.returncode), _last_line(done.stderr)
