"""A change to one entry of git's index that stands only if git's index still says what memidx
looked at, both under git's own index lock.

memidx looked at git's index (`git ls-files`), then changed it (`git update-index`): a person's
`git add` in between was written over (the put-back of a note a switch back brought home: the
person's staged file undone, `git status` ` M`). Now a shell in a session of its own takes
`.git/index.lock` as git does (created, never opened if it exists: set -C), looks, changes a
copy of the index and renames it over the index, then lets the lock go, as the move's own
follow does (memidx/git/move_script.py): a person's git that wants the index meanwhile is
refused at once ("index.lock: File exists"), as during any git command, and memidx killed
meanwhile leaves no lock (the shell ends its work alone)."""

from __future__ import annotations

import subprocess
from pathlib import Path

HELD = 3  # another git holds git's index: wait and try again
STAGED = 2  # git's index holds an entry at the path now: whoever staged it decides
KEPT = 4  # HEAD holds the path, or its file is no longer what memidx committed: left as it is
_COPY = "memidx-edit-index"  # the copy of git's index the change is made in
_LOCK = (  # $1 the path, $2 the blob, $3 the git dir
    f'dir=$3 lock=$3/index.lock copy=$3/{_COPY} token="memidx $$ $2"; '
    f'( set -C; printf %s "$token" >"$lock" ) 2>/dev/null || {{ [ -e "$lock" ] && exit {HELD}; '
    # none there, yet none made (the git folder unwritable): the shell's words, not "held"
    f'( set -C; : >"$lock" ) || exit 1; rm -f "$lock"; exit {HELD}; }}; '
    'mine() { [ "$(cat "$lock" 2>/dev/null)" = "$token" ]; }; '
    'trap \'rm -f "$copy"; mine && rm -f "$lock"\' EXIT; '
    'entry=$(git ls-files -s -- ":(literal)$1" | cut -d" " -f2); '
    'edit() { rm -f "$copy" "$copy.lock"; { [ ! -e "$dir/index" ] || cp -p "$dir/index" "$copy"; '
    '} && GIT_INDEX_FILE=$copy git "$@" && mine && mv -f "$copy" "$dir/index"; }; '
)
# $1 the path, $2 HEAD's blob there, $3 the git dir, $4 its mode: HEAD's entry put back where
# git's index holds none
_PUT_BACK = _LOCK + (
    f'[ -z "$entry" ] || exit {STAGED}; '
    'edit update-index --add --cacheinfo "$4,$2,$1" || exit 1; exit 0'
)
# $1 the path, $2 the blob memidx committed there, $3 the git dir: the entry of that blob and
# the file byte for byte that blob taken out, HEAD holding nothing there (a switch took them
# along to a branch that does not hold memidx's commit); its entry alone when the file is gone.
# The file is moved aside (a rename) before it is read: an editor's save after that look was
# deleted with it, and one now writes a file of its own at the path, which stays. Aside it is
# `.<name>.memidx-<pid>`, as memidx.memory.pending_elsewhere names its own: one a killed shell
# left (`.memidx-taken-out-<pid>` before, named nowhere, `git add -A` took it) is in `status`
_TAKE_OUT = _LOCK + (
    f'if [ -n "$entry" ] && [ "$entry" != "$2" ]; then exit {STAGED}; fi; '
    f'git rev-parse -q --verify "HEAD:$1" >/dev/null && exit {KEPT}; '
    'if [ -n "$entry" ] && [ ! -e "$1" ] && [ ! -h "$1" ]; then '
    'edit update-index --force-remove -- "$1" || exit 1; exit 0; fi; '
    f'{{ [ ! -h "$1" ] && [ -f "$1" ]; }} || exit {KEPT}; '
    'case $1 in */*) aside="${1%/*}/.${1##*/}.memidx-$$" ;; *) aside=".$1.memidx-$$" ;; esac; '
    f'( set -C; : >"$aside" ) 2>/dev/null || exit {KEPT}; '  # its place, never over another
    f'mv -f -- "$1" "$aside" || {{ rm -f -- "$aside"; exit {KEPT}; }}; '
    'if [ "$(git hash-object --path="$1" -- "$aside")" != "$2" ]; then '  # edited: back, as it is
    f'ln -- "$aside" "$1" 2>/dev/null && rm -f -- "$aside"; exit {KEPT}; fi; '
    'if [ -n "$entry" ] && ! edit update-index --force-remove -- "$1"; then '
    'ln -- "$aside" "$1" 2>/dev/null; rm -f -- "$aside"; exit 1; fi; '
    'rm -f -- "$aside"; exit 0'
)


def put_back_entry(root: Path, git_dir: Path, path: str, mode: str, blob: str) -> tuple[int, str]:
    """Put `blob` at `path` in git's index when it holds no entry there: 0 when done, STAGED
    when one is there, HELD when another git holds the index, else git's failure (1); with
    the last line git wrote to stderr ("" when none)."""
    from memidx.children import SHELL

    if SHELL is None:  # no POSIX shell (Windows): the look and the change one after the other
        return _put_back_unlocked(root, path, mode, blob)
    put, said = _locked(_PUT_BACK, root, path, blob, git_dir, mode)
    return put, said.replace(str(git_dir / _COPY), str(git_dir / "index"))  # the one it read


def take_out_entry(root: Path, git_dir: Path, path: str, blob: str) -> tuple[int, str]:
    """Take `path` out of git's index and the work tree when git's index holds `blob` there
    (or nothing), the file is that blob byte for byte (or gone: the entry alone) and HEAD
    holds nothing there: 0 when done, STAGED (a person's own entry), KEPT, HELD, else git's
    failure (1); with the last line git wrote to stderr ("" when none)."""
    from memidx.children import SHELL

    assert SHELL is not None  # index_follow takes out with git's own commands where none is
    taken, said = _locked(_TAKE_OUT, root, path, blob, git_dir)
    return taken, said.replace(str(git_dir / _COPY), str(git_dir / "index"))  # the one it read


def _locked(script: str, root: Path, *args: str | Path) -> tuple[int, str]:
    """Run `script` (one of _LOCK's) in a shell of its own session: memidx killed, it ends
    its work and lets git's index go. Its status, and the last line of its stderr (a file,
    no pipe that a killed memidx closes under it)."""
    import tempfile

    from memidx.children import SHELL, run_in_session

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
