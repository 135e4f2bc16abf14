"""The files a move of HEAD deletes (committed as deleted: forget's note, share's twin at its old
name), set aside in one folder per move before they are judged (memidx.git.move_follow).

The move's shell gave each file a name of its own beside it (`.<name>.memidx-<pid>`, made with
`set -C`) and moved it there with an `mv` each, under git's index lock: 50 files held the lock
593 ms against 48 ms on the fast path, every `git add` of the person's refused meanwhile. Now
one folder is made in the git folder for the move (`memidx-aside-<pid>[-<n>]`, never one
already there), its list of paths written first (LIST: `<n>:<digest> <path>` a line), and each file
renamed into it as `<n>` (a rename each, no process): a save at its path after that makes a new
file, never touched. A file that still holds the bytes judged goes with the folder; one that
differs goes back to its path, never over a file saved there since (then it stays beside it
as `.<name>.memidx-<pid>`, which `memidx status` names). A memidx killed in between left the
folder: the next sync, status or remember puts each file right (folders_back), as it does a
file the shell left aside."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from memidx.git.killed_edit import ASIDE

PREFIX = "memidx-aside-"  # in the git folder, `<pid>[-<n>]` after it
LIST = "paths"  # in the folder: `<n>:<sha256 of the bytes judged> <path>` per file, written
# before any file moves in (`<n> <path>`: an older memidx's)


@dataclass(slots=True)
class SetAside:
    """The folder a move's deleted files went to, and each file there with the bytes judged."""

    folder: Path | None
    moved: dict[str, tuple[Path, bytes]] = field(default_factory=dict[str, tuple[Path, bytes]])


def set_aside(root: Path, git_dir: Path, gone: Mapping[str, bytes | None]) -> SetAside | None:
    """Move each file of `gone` with bytes judged into a folder made for this move; None (each
    file back where it was) when the folder, its list or a rename failed. A path with a line
    break, or one whose file went meanwhile, is not moved."""
    judged = {p: b for p, b in gone.items() if b is not None and "\n" not in p}
    judged = {p: b for p, b in judged.items() if os.path.lexists(root / p)}
    if not judged:
        return SetAside(None)
    listed = b"".join(  # hashed before the folder is made: no more time in the window where
        # a memidx killed left the move's files half set aside than the writes take
        b"%d:%s %s\n" % (n, _digest(judged[p]).encode(), os.fsencode(p))
        for n, p in enumerate(judged)
    )
    folder = _made(git_dir)
    if folder is None:
        return None
    done = SetAside(folder)
    try:
        (folder / LIST).write_bytes(listed)
        for n, (path, data) in enumerate(judged.items()):
            with contextlib.suppress(FileNotFoundError):  # deleted meanwhile: nothing to judge
                (root / path).rename(folder / str(n))
                done.moved[path] = (folder / str(n), data)
    except OSError:  # another file system (EXDEV), a full disk: all as it was
        for path, (aside, _) in done.moved.items():
            _back(aside, root / path, os.getpid())
        _remove(folder)
        return None
    return done


def deleted_judged(root: Path, git_dir: Path, gone: Mapping[str, bytes | None]) -> dict[str, bytes]:
    """Delete each file of `gone` that still holds the bytes judged (set aside in one folder,
    then judged), the others left or put back: the paths deleted, with those bytes. Where no
    folder can be had (a git folder on another file system), each file is judged on its own
    (memidx.git.judged_unlink)."""
    from memidx.git import move_trace as trace
    from memidx.git.judged_unlink import unlink_judged

    aside = set_aside(root, git_dir, gone)
    if aside is None:
        return {p: b for p, b in gone.items() if b is not None and unlink_judged(root / p, b)}
    trace.mark("aside")
    return {path: aside.moved[path][1] for path in judge(root, aside)}


def judge(root: Path, aside: SetAside) -> list[str]:
    """Delete each file set aside that holds the bytes judged; put each other back (_back) and
    remove the folder: the paths deleted (their emptied folders left for the caller to remove
    once the move's files are written: index_swap.remove_emptied)."""
    deleted: list[str] = []
    for path, (file, judged) in aside.moved.items():
        try:
            same = not file.is_symlink() and file.is_file() and file.read_bytes() == judged
            if same:
                file.unlink()
                deleted.append(path)
                continue
        except OSError:
            pass
        _back(file, root / path, os.getpid())
    if aside.folder is not None:
        _remove(aside.folder)
    return deleted


def folders_back(root: Path, git_dir: Path) -> list[str]:
    """Put right the folders a memidx now gone left with files set aside (killed between its
    rename of a file in and its judgement): each file back at its path, or dropped when it is
    the bytes HEAD's commit deleted there, the same as the file there now, or the bytes judged
    of a note the move rewrote (_replaced) (else kept beside it); a line for each
    (memidx.git.killed_edit.aside_back's words)."""
    from memidx.git.killed_edit import aside_back, gone_owner

    lines: list[str] = []
    for folder in sorted(git_dir.glob(f"{PREFIX}*")):
        pid = folder.name.removeprefix(PREFIX).split("-")[0]
        if not pid.isdigit() or not folder.is_dir() or not gone_owner(int(pid), folder):
            continue
        for number, digest, path in _listed(folder):
            file = folder / number
            if not os.path.lexists(file):
                continue
            if (line := _replaced(root, file, digest, root / path)) is not None:
                lines.append(line)
                continue
            with contextlib.suppress(OSError):  # an emptied folder went with the move
                (root / path).parent.mkdir(parents=True, exist_ok=True)
            if (line := aside_back(root, file, root / path, made=False)) is not None:
                lines.append(line)
            if os.path.lexists(file):  # a file at its path now, another: kept beside it
                _back(file, root / path, int(pid))
        _remove(folder)
    return lines


def _replaced(root: Path, file: Path, digest: str, path: Path) -> str | None:
    """Remove `file` when it still holds the bytes judged (`digest`: share's merge judged the
    old commit's bytes at `path`, as a checkout wrote them, so git holds them), a file is at
    `path` again (the move's shell wrote the new commit's there) and HEAD holds `path` (the
    move rewrote it; a deleted one is judged as before, killed_edit.aside_back): a rewritten
    note's old bytes, which were kept beside it as `.<name>.memidx-<pid>` for the person's next
    `git add -A`. A line saying so; None when it is not that (kept or put back, as before)."""
    from memidx.git.repo import GitRepo
    from memidx.text import display

    ref = path.relative_to(root).as_posix()
    try:
        if not digest or path.is_symlink() or not path.is_file() or file.is_symlink():
            return None
        if not file.is_file() or _digest(file.read_bytes()) != digest:
            return None
        if not GitRepo(root).run("ls-tree", "HEAD", "--", f":(literal){ref}", check=False):
            return None
        file.unlink()
    except OSError:
        return None
    shown = display(ref)
    return (
        f"removed the bytes {shown} held before a move a memidx killed part way made, which it "
        f"had set aside unchanged (git holds them, in the commit the move left; HEAD and the "
        f"work tree hold {shown})"
    )


def _digest(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _listed(folder: Path) -> list[tuple[str, str, str]]:
    """The folder's list: (its file's number, the digest of the bytes judged, or "" where an
    older memidx wrote none, the path it came from), each."""
    try:
        listed = (folder / LIST).read_bytes()
    except OSError:  # made, nothing listed yet: nothing moved in
        return []
    found: list[tuple[str, str, str]] = []
    for line in listed.split(b"\n"):  # not splitlines: a name may hold a carriage return
        head, _, path = line.partition(b" ")
        number, _, digest = head.partition(b":")
        if number.isdigit() and path:
            found.append((number.decode(), digest.decode("ascii", "replace"), os.fsdecode(path)))
    return found


def _made(git_dir: Path) -> Path | None:
    """A new folder for this move's files, named for this process, or None."""
    from memidx.process_start import note_clock

    note_clock()  # a clock step since keeps the folder while this process runs (owner_gone)
    for n in range(100):
        folder = git_dir / f"{PREFIX}{os.getpid()}{f'-{n}' if n else ''}"
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        except OSError:
            return None
        return folder
    return None


def _back(file: Path, path: Path, pid: int) -> None:
    """Put `file` back at `path`, never over a file saved there since: then beside it as
    `.<name>.memidx-<pid>[-<n>]`, a name not yet taken (status names it); where the file system
    has no hard links, renamed back only when nothing is at `path`."""
    try:
        os.link(file, path, follow_symlinks=False)
    except FileExistsError:
        for n in range(100):
            beside = path.with_name(f".{path.name}{ASIDE}{pid}{f'-{n}' if n else ''}")
            try:
                os.link(file, beside, follow_symlinks=False)
            except FileExistsError:
                continue
            except OSError:
                return
            break
        else:
            return
    except OSError:
        if not os.path.lexists(path):
            with contextlib.suppress(OSError):
                file.rename(path)
        return
    with contextlib.suppress(OSError):
        file.unlink()


def _remove(folder: Path) -> None:
    """Remove the folder's list and the folder, when nothing else is left in it: a file that
    could not go back keeps the list that names its path (folders_back, next time); removed
    with the file still there, the file was kept for good under a number, named nowhere."""
    with contextlib.suppress(OSError):
        with os.scandir(folder) as entries:
            if any(entry.name != LIST for entry in entries):
                return
        (folder / LIST).unlink(missing_ok=True)
        folder.rmdir()
