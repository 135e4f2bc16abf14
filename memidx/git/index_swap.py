"""git's index brought to memidx's new commit before memidx takes `.git/index.lock`, so that it
holds the lock only for a rename.

memidx held index.lock from just before HEAD's move until a git command (the move's follow,
`git reset -q <new> -- <paths>` on a copy of the index) had run and its copy was renamed over
the index: ~10-50 ms at a load of ~20, in which every `git add`, `commit`, `switch`, `stash`
and `merge` of the person's failed at once ("index.lock: File exists", "fatal: stash failed").
Now that command runs on a copy made before the move (`READY`, its time kept as the move's
follow keeps it: racy git), and under the lock memidx only checks that git's index is the one
it copied (the same file: git writes a new index by renaming its lock over it), commits the
move, writes the files the follow would check out (where nothing is at their paths) and
renames the copy over the index. When the index changed meanwhile, or anything of that fails,
the move's follow does its work under the lock as before (memidx.git.move_script)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from memidx.git.index_refresh import refresh_words
from memidx.git.index_stat import stat_given_here
from memidx.git.judged_unlink import unlink_judged
from memidx.git.move_aside import deleted_judged
from memidx.git.ready_lock import READY, stale_lock_gone, written
from memidx.git.repo import git_env

SEEN = f"{READY}.seen"  # and a hard link of git's index it was copied from
WRITTEN = f"{READY}.files"  # and the files swap() writes, before it puts them in place
Signature = tuple[int, int, int, int]  # git's index as stat sees it
NONE: Signature = (0, 0, 0, 0)  # no index yet
Prepared = tuple[Signature, Mapping[str, bytes]]  # the index copied, the files to write
Gone = Mapping[str, bytes | None] | None  # the files a move deletes, with the bytes judged
TRIES = 3  # copies made while a person's gits keep writing the index (then: the move's follow)


def prepare(
    root: Path,
    git_dir: Path,
    args: Sequence[str],
    new: str,
    files: Sequence[str],
    *,
    gone: Gone = None,
) -> Prepared | None:
    """Copy git's index to READY and run `git <args>` on the copy; the index's signature and
    the blobs `new` holds at `files` (to write once HEAD moved), or None when that failed or
    the index changed during each of TRIES copies (READY removed)."""
    import shutil

    if not all(_free(root, path, gone) for path in files):
        return None  # usable() would refuse it: no copy, no `git cat-file` per file for naught
    ready = git_dir / READY
    env = {**git_env(), "GIT_INDEX_FILE": str(ready)}  # not a hook's GIT_DIR, GIT_INDEX_FILE
    try:
        blobs = {path: _blob(root, new, path) for path in files}
    except OSError:  # no process could start (a transient error): the follow does it
        return None
    found = {path: blob for path, blob in blobs.items() if blob is not None}
    for _ in range(TRIES):  # a person's git wrote the index during the copy: copied again
        try:
            discard(git_dir)  # a killed memidx's
            if not stale_lock_gone(git_dir, root):  # its git still writes READY (ready_lock)
                return None
            _hold(git_dir)  # first: the link changes the index's ctime, part of its signature
            before = signature(git_dir)
            if before != NONE:
                shutil.copy2(git_dir / "index", ready)
            ran = written(root, git_dir, env, args)  # its pid beside READY (ready_lock)
            if not ran and (words := refresh_words(args)):  # the paths reset alone: none
                written(root, git_dir, {**env, "GIT_OPTIONAL_LOCKS": "1"}, words)  # stat-less
        except OSError:
            break
        if ran or len(found) != len(blobs):
            break
        if before == signature(git_dir):
            return before, found
    discard(git_dir)
    return None


def _blob(root: Path, commit: str, path: str) -> bytes | None:
    """The file `commit` holds at `path`, as a checkout writes it (its attributes' filters)."""
    import subprocess

    argv = ["git", "cat-file", "--filters", f"{commit}:{path}"]
    done = subprocess.run(argv, cwd=root, env=git_env(), capture_output=True, check=False)
    return None if done.returncode else done.stdout


def signature(git_dir: Path) -> Signature:
    """What stat says of git's index: a git that wrote it since renamed a new file over it."""
    try:
        seen = (git_dir / "index").stat()
    except FileNotFoundError:
        return NONE
    return (seen.st_ino, seen.st_size, seen.st_mtime_ns, seen.st_ctime_ns)


def _hold(git_dir: Path) -> None:
    """Hold git's index by a hard link (SEEN) while it is copied: its inode is not used again
    meanwhile, so a git that wrote the index twice in one clock tick, to the same size, is
    still seen (the stat signature alone missed it); none where the file system has no
    links (the signature then decides alone)."""
    try:
        os.link(git_dir / "index", git_dir / SEEN)
    except OSError:
        return


def _same_index(git_dir: Path, seen: Signature) -> bool:
    """Whether git's index is the one copied: the file held, else its stat signature."""
    if signature(git_dir) != seen:
        return False
    try:
        return (git_dir / "index").samefile(git_dir / SEEN)
    except FileNotFoundError:
        return seen == NONE or not (git_dir / SEEN).exists()  # no link was made: stat alone


def usable(root: Path, git_dir: Path, prepared: Prepared | None, gone: Gone = None) -> bool:
    """Whether the READY copy stands for git's index now (memidx holds index.lock) and no file
    is at the paths it would write (a person's: the follow's checkout decides, as before) but
    one `gone` deletes first (share's merge changes it), still the bytes judged."""
    if prepared is None or not _same_index(git_dir, prepared[0]):
        return False
    return all(_free(root, path, gone) for path in prepared[1])


def _free(root: Path, path: str, gone: Gone) -> bool:
    """Whether `path` may be written: nothing is there, or the file `gone` deletes first."""
    judged = (gone or {}).get(path)
    return not os.path.lexists(root / path) or (judged is not None and _holds(root / path, judged))


def swap(
    root: Path, git_dir: Path, files: Mapping[str, bytes], gone: Mapping[str, bytes | None] | None
) -> bool:
    """Delete `gone` (committed as deleted: the follow's restore deletes them; left for the
    caller, a killed memidx left a forgotten note untracked for the person's next `git add -A`)
    where each still holds the bytes judged (None: no file was; an edit made since is the
    person's, left untracked), rename READY over git's index (HEAD moved, index.lock memidx's)
    and write `files` where nothing is at their paths, in that order; False when that failed
    (the move's follow then does it), the work tree as it was. The bytes are written aside
    first (WRITTEN): a write that failed part way (a full disk) had deleted files and written
    others, which the follow's read-tree then refused as in its way, and share undid its merge."""
    if not all(_free(root, path, gone) for path in files):
        return False  # nothing changed yet: the follow does it all, as git would
    aside = _written_aside(git_dir, files)
    if aside is None:
        return False  # nothing changed: the follow does it all
    deleted: dict[str, bytes] = {}
    placed: dict[str, bytes] = {}
    try:  # the files deleted before the index, as the slow path does (move_follow): a memidx
        # killed between left its shell the new index, on which the follow's git found no
        # entry at a deleted path and failed before its `leave`: a forgotten note stayed,
        # untracked. Set aside in one folder (no rename over a file: ext4 wrote each out)
        deleted = deleted_judged(root, git_dir, gone or {})
        # the index before the files placed: a memidx killed after it left the shell's
        # follow (share's `read-tree -m -u`) git's index as it was, which found the files
        # placed in its way, failed and moved HEAD back over a half-merged work tree; on the
        # new index it finds them tracked, and its `leave` writes what is still missing
        (git_dir / READY).replace(git_dir / "index")
    except OSError:
        _put_back(root, deleted, placed)
        _discard_written(git_dir)
        return False  # all as it was: the follow does it all
    try:
        for (path, data), staged in zip(files.items(), aside, strict=True):
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            _place(staged, root / path)
            placed[path] = data
    except OSError:
        _put_back(root, deleted, placed)
        _old_index_back(git_dir)
        return False
    finally:
        _discard_written(git_dir)
    for path in deleted:
        remove_emptied(root, (root / path).parent)
    (git_dir / SEEN).unlink(missing_ok=True)
    stat_given_here(root, git_dir, list(files))  # their links aside gone: ctime as it stays
    return True


def _old_index_back(git_dir: Path) -> None:
    """git's index as it was before swap renamed READY over it (its hold, SEEN), so that the
    follow runs from it; where there is no hold, the new index stays, and the follow, run on
    it, writes what is missing."""
    with contextlib.suppress(OSError):
        if (git_dir / SEEN).exists():
            (git_dir / SEEN).replace(git_dir / "index")


def _written_aside(git_dir: Path, files: Mapping[str, bytes]) -> list[Path] | None:
    """`files`' bytes written in WRITTEN (in the git folder), one file each, or None when one
    could not be (none left): nothing in the work tree is touched before they all are."""
    folder = git_dir / WRITTEN
    staged: list[Path] = []
    try:
        folder.mkdir(exist_ok=True)
        for number, data in enumerate(files.values()):
            staged.append(folder / str(number))
            with staged[-1].open("wb") as file:
                file.write(data)
    except OSError:
        _discard_written(git_dir)
        return None
    return staged


def _place(staged: Path, path: Path) -> None:
    """Put the file written aside at `path`, never over a file there (FileExistsError)."""
    try:
        os.link(staged, path)
    except FileExistsError:
        raise
    except OSError:  # no hard links (or another file system): moved, unless a file came
        if os.path.lexists(path):
            raise FileExistsError(path) from None
        import shutil

        shutil.move(staged, path)


def _put_back(root: Path, deleted: Mapping[str, bytes], placed: Mapping[str, bytes]) -> None:
    """Undo a swap that failed part way: each file placed goes while it holds its bytes, each
    deleted comes back where nothing is (its bytes, judged before)."""
    for path, data in placed.items():
        unlink_judged(root / path, data)
    for path, judged in deleted.items():
        try:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            with (root / path).open("xb") as file:
                file.write(judged)
        except OSError:
            continue


def _discard_written(git_dir: Path) -> None:
    import shutil

    shutil.rmtree(git_dir / WRITTEN, ignore_errors=True)


def remove_emptied(root: Path, folder: Path) -> None:
    """Remove `folder` and each parent below `root` the deletion left empty, as git's restore
    does (README: an emptied folder goes too)."""
    while folder != root and root in folder.parents:
        try:
            folder.rmdir()
        except OSError:  # not empty (or not ours to remove): the folders above are not either
            return
        folder = folder.parent


def _holds(path: Path, judged: bytes) -> bool:
    """Whether `path` is a regular file of exactly `judged` (a look before the move; the unlink
    itself judges again, aside: git/judged_unlink.py)."""
    try:
        return not path.is_symlink() and path.is_file() and path.read_bytes() == judged
    except OSError:
        return False


def discard(git_dir: Path) -> None:
    """Remove READY (unused, or half made) and its hold of git's index; a lock a killed git
    left on it once that git is gone (memidx.git.ready_lock)."""
    stale_lock_gone(git_dir)
    try:
        (git_dir / READY).unlink(missing_ok=True)
        (git_dir / SEEN).unlink(missing_ok=True)
    except OSError:
        return
    _discard_written(git_dir)  # a killed memidx's
