"""A git command run on a copy of git's index that then replaces it, memidx holding
`.git/index.lock` only for that rename.

memidx's `git reset -q <commit> -- <paths>` (git's index told of what memidx committed) and its
`git update-index --force-remove` (a former writer's staged segments) ran on git's index
itself: git held index.lock for the whole command (a process start, the index read and written:
~10-40 ms at a load of ~20), and every `git add`, `commit`, `switch` or `stash` of the person's
in that time failed at once ("index.lock: File exists"). Now the command runs on a copy, with
git's index kept alive by a hard link (its inode cannot be reused meanwhile, so two writes of
the index in one clock tick are still seen: git writes a new index by renaming its lock over
it), and under the lock memidx only checks that git's index is still that file and renames the
copy over it. When another git changed the index meanwhile, the command runs again on a new
copy; when another git holds the lock, the caller waits as it did."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

HELD = 3  # another git holds git's index, or kept changing it: wait and try again
TRIES = 5  # copies made in one call while other gits keep writing the index
COPIED = "memidx-copied-index"  # in the git folder, `-<pid>` after it
_PREFIXES = ("memidx-copied", "memidx-edit", "memidx-follow")  # and index_edit's, move_follow's
_CHANGED = -1  # git's index changed since it was copied: copied again
SWAP = "copy"  # the word after the pid in the index.lock _swapped takes
MAX_TOKEN = 64  # bytes: `memidx <pid> copy`, read from an index.lock no longer than that
HELD_SAID = "fatal: Unable to create '{}': File exists (another git command holds git's index)"


def edit_on_copy(
    root: Path, git_dir: Path, args: Sequence[str], *, input_bytes: bytes = b""
) -> tuple[int, str]:
    """Run `git <args>` on a copy of git's index and rename it over the index while the index
    is still the one copied: (0, "") once done; (HELD, git's words for a held lock) when
    another git holds index.lock or changed the index at each of TRIES copies; else git's
    status and the last line of its stderr (git's index untouched)."""
    for _ in range(TRIES):
        status, words = _once(root, git_dir, args, input_bytes)
        if status != _CHANGED:
            return status, words
    return HELD, HELD_SAID.format(git_dir / "index.lock")


def _once(root: Path, git_dir: Path, args: Sequence[str], input_bytes: bytes) -> tuple[int, str]:
    import subprocess

    from memidx.git.index_refresh import refreshed
    from memidx.git.repo import git_env

    copy, seen = _names(git_dir)
    try:
        if not _copied(git_dir, copy, seen):
            return _CHANGED, ""
        env = {**git_env(), "GIT_INDEX_FILE": str(copy)}
        done = subprocess.run(
            ["git", *args], cwd=root, env=env, input=input_bytes, capture_output=True, check=False
        )
        if done.returncode:
            lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
            return done.returncode, lines[-1].strip() if lines else ""
        refreshed(root, env, args)  # a reset's paths: their entries given their stat
        swapped = _swapped(git_dir, copy, seen)
        return swapped, HELD_SAID.format(git_dir / "index.lock") if swapped == HELD else ""
    except OSError as exc:
        return 1, f"cannot copy git's index: {exc}"
    finally:
        for path in (copy, seen, copy.with_name(copy.name + ".lock")):
            path.unlink(missing_ok=True)


def _names(git_dir: Path) -> tuple[Path, Path]:
    """This process's copy of git's index and its hold of the index it copied."""
    from memidx.process_start import note_clock

    pid = os.getpid()
    note_clock()  # before a file named by this pid: a clock step since keeps it (owner_gone)
    remove_dead_copies(git_dir)
    return git_dir / f"{COPIED}-{pid}", git_dir / f"{COPIED}-{pid}.seen"


def remove_dead_copies(git_dir: Path) -> None:
    """Remove the copies of git's index (and their holds) a memidx killed with `kill -9` left
    in the git folder (`memidx-*-index-<pid>[.seen|.lock]`, that pid gone). Asked of the
    system, not of /proc: where there is none (macOS) each was left for good, a copy of the
    whole index and a hard link keeping an old one alive. A pid given again to a process
    started since the file was made does not keep it (memidx.process_start). What a memidx
    killed as it judged a lock or a copy moved aside goes too (memidx.git.folder_asides)."""
    from memidx.git.folder_asides import sweep_asides
    from memidx.git.judged_unlink import unlink_if_gone

    sweep_asides(git_dir)

    try:
        names = [entry.name for entry in os.scandir(git_dir) if entry.name.startswith("memidx-")]
        for name in names:
            prefix, _, rest = name.partition("-index-")
            pid = rest.split(".", 1)[0]
            if prefix in _PREFIXES and pid.isdigit():
                # judged and moved aside as one file: looked at, then unlinked, a copy a
                # memidx given that pid made between was removed while its git wrote it
                ran = _its_git_gone if name.endswith(".git") else None
                unlink_if_gone(git_dir / name, int(pid), ran)
    except OSError:
        return


def _its_git_gone(held: int) -> bool:
    """Whether the git whose pid memidx.git.move_follow wrote beside its copy (`<copy>.git`,
    held open) is gone: the move's shell waits while it runs, and a sweep of a killed
    memidx's that removed it had the shell go on while that git still wrote the note."""
    from memidx.process_start import owner_gone

    seen = os.fstat(held)
    said = os.read(held, 32).strip()
    return not said.isdigit() or owner_gone(int(said), max(seen.st_ctime, seen.st_mtime))


def killed_swap_let_go(root: Path, git_dir: Path) -> int | None:
    """Remove git's index.lock when a memidx killed in _swapped left it (`memidx <pid> copy`:
    the stop signals are held there, but not `kill -9` nor a power cut), with the copies it
    made: that memidx gone (no such pid, or one started after the lock was made), no process
    holding the lock and no git running in the clone (memidx.git.lock_holders.left_behind:
    Linux; elsewhere it stays, and `memidx status` names it with its `rm`). git's index is
    whole either way, the copy renamed over it or not yet. The pid when removed, else None."""
    from memidx.git.judged_unlink import read_once, unlink_judged
    from memidx.git.lock_holders import left_behind
    from memidx.process_start import owner_gone

    lock = git_dir / "index.lock"
    if (read := read_once(lock, MAX_TOKEN)) is None:
        return None
    seen, judged = read
    pid = _copy_token(judged)
    made = max(seen.st_ctime, seen.st_mtime)  # as memidx.process_start.made_at
    if pid is None or not owner_gone(pid, made) or not left_behind(lock, root):
        return None
    # only the lock judged: one let go and taken since (by a git, or a memidx given that pid,
    # the same token in it) was removed under the git or memidx that held it
    try:
        if not unlink_judged(lock, judged, seen):
            return None
    except OSError:  # a folder it may not change: status names it
        return None
    remove_dead_copies(git_dir)
    return pid


def _copy_token(data: bytes) -> int | None:
    """The pid `memidx <pid> copy` names, else None."""
    said = data.split()
    if len(said) != 3 or said[0] != b"memidx" or said[2] != SWAP.encode():
        return None
    return int(said[1]) if said[1].isdigit() else None


def _copied(git_dir: Path, copy: Path, seen: Path) -> bool:
    """Copy git's index (its times kept: racy git) to `copy` and hold the file copied at `seen`
    (a hard link; a copy where the file system has none); False when it changed meanwhile."""
    import shutil

    index = git_dir / "index"
    for path in (copy, seen):
        path.unlink(missing_ok=True)  # a killed memidx's, of this pid
    try:
        os.link(index, seen)
    except FileNotFoundError:
        return True  # no index yet: git makes the copy, still none there at the swap
    except OSError:  # no hard links here: a second copy, compared byte for byte
        shutil.copy2(index, seen)
    shutil.copy2(seen, copy)
    return _unchanged(index, seen)


def _unchanged(index: Path, seen: Path) -> bool:
    """Whether git's index is the file held at `seen` (or, none held, there is still none), or
    one of the same bytes (a git that wrote it again as it was; a file system without links)."""
    if not seen.exists():
        return not index.exists()
    try:
        if index.samefile(seen):
            return True
        return index.stat().st_size == seen.stat().st_size and index.read_bytes() == (
            seen.read_bytes()
        )
    except FileNotFoundError:
        return False


def _swapped(git_dir: Path, copy: Path, seen: Path) -> int:
    """Take index.lock as git does and, while git's index is the one copied, rename `copy`
    over it, the lock let go at once: 0 when done, HELD (another git holds the lock) or
    _CHANGED. Signals that end memidx wait until then: no lock is left for the person to
    remove by hand."""
    from memidx.git.move_script import index_token, let_go, take_index_lock
    from memidx.portable_signals import stop_signals_held

    token = index_token(os.getpid(), SWAP)
    with stop_signals_held():
        if not take_index_lock(git_dir, token):
            return HELD
        try:
            if not _unchanged(git_dir / "index", seen):
                return _CHANGED
            copy.replace(git_dir / "index")
            return 0
        finally:
            let_go(git_dir, token)
