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
# $1 the path, $2 its mode, $3 its blob, $4 the git dir: HEAD's entry put back where git's
# index holds none
_PUT_BACK = (
    'lock=$4/index.lock copy=$4/memidx-edit-index token="memidx $$ $3"; '
    f'( set -C; printf %s "$token" >"$lock" ) 2>/dev/null || exit {HELD}; '
    'mine() { [ "$(cat "$lock" 2>/dev/null)" = "$token" ]; }; '
    'if [ -n "$(git ls-files -s -- ":(literal)$1")" ]; then '
    f'mine && rm -f "$lock"; exit {STAGED}; fi; '
    'rm -f "$copy" "$copy.lock"; '
    'if { [ ! -e "$4/index" ] || cp -p "$4/index" "$copy"; } && '
    'GIT_INDEX_FILE=$copy git update-index --add --cacheinfo "$2,$3,$1" && '
    'mine && mv -f "$copy" "$4/index"; then rm -f "$lock"; exit 0; fi; '
    'rm -f "$copy"; mine && rm -f "$lock"; exit 1'
)


def put_back_entry(root: Path, git_dir: Path, path: str, mode: str, blob: str) -> int:
    """Put `blob` at `path` in git's index when it holds no entry there: 0 when done, STAGED
    when one is there, HELD when another git holds the index, else git's failure (1)."""
    from memidx.children import SHELL

    if SHELL is None:  # no POSIX shell (Windows): the look and the change one after the other
        return _put_back_unlocked(root, path, mode, blob)
    argv = [SHELL, "-c", _PUT_BACK, "memidx", path, mode, blob, str(git_dir)]
    done = subprocess.run(argv, cwd=root, capture_output=True, check=False, start_new_session=True)
    return done.returncode


def _put_back_unlocked(root: Path, path: str, mode: str, blob: str) -> int:
    look = ["git", "ls-files", "-s", "--", f":(literal){path}"]
    if subprocess.run(look, cwd=root, capture_output=True, check=False).stdout.strip():
        return STAGED
    put = ["git", "update-index", "--add", "--cacheinfo", f"{mode},{blob},{path}"]
    done = subprocess.run(put, cwd=root, capture_output=True, check=False)
    return HELD if done.returncode and b"index.lock" in done.stderr else done.returncode
