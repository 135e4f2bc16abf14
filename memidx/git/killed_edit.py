"""What a change of git's index by memidx left when it was killed part way
(memidx/git/index_edit.py: a shell of its own takes `.git/index.lock`, its token in it, and the
take-out moves the note's file aside, `.<name>.memidx-<pid>`, before it reads it): the lock,
which made every git command of the person's fail ("index.lock: File exists") and which
`status` called a killed git's, to be removed by hand, and the file aside, which `git add -A`
took. The next `sync`, `status` or `remember` puts them right, and says so in one line:
the lock goes when it holds memidx's token, the shell named in it is gone and no process holds
it or runs git in the clone (memidx.git.lock_holders.left_behind: Linux; elsewhere it stays,
as before); a file aside whose memidx is gone goes back to its path when nothing is there (the
take-out whose lock went is then done again, every check made anew), and is dropped when the
file there holds the same bytes. Nothing else is touched: a lock a live
git (or a live memidx) holds, or a file aside beside another saved at its path, stays."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from pathlib import Path

from memidx.text import display

ASIDE = ".memidx-"  # `.<name>.memidx-<pid>[-<n>]`, as memidx.memory.pending_elsewhere.ASIDE
EDIT_COPY = "memidx-edit-index"  # memidx.git.index_edit's copy of git's index
TOKEN_MOST = 128  # bytes: `memidx <pid> <object>`, read from an index.lock no longer than that


def settle_killed_edit(root: Path, notes: Path, *, asides: bool = True) -> list[str]:
    """Put right what a memidx killed while it changed git's index left in the clone at `root`:
    what was done, one line each. `asides`: look under `notes` for files moved aside even when
    no lock was left (a walk of the notes folder: `remember` does it only after a lock)."""
    from memidx.git.index_copy import killed_swap_let_go, remove_dead_copies
    from memidx.git.move_aside import folders_back

    folder = _git_folder(root)
    swapped = None if folder is None else killed_swap_let_go(root, folder)
    copy = [] if swapped is None or folder is None else [_swap_line(folder, swapped)]
    token = None if folder is None else _lock_let_go(root, folder)
    if folder is not None:  # the move's own follow's (move_follow): its set-aside, its copy
        copy += folders_back(root, folder)
        remove_dead_copies(folder)
    found = _asides_back(root, notes, token) if token is not None or asides else []
    if token is None or folder is None:
        return [*copy, *(line for _, line in found)]
    lock = _lock_line(folder, token[0])  # one line with what the same killed shell left aside
    said = [lock, *(line for pid, line in found if pid == token[0])]
    return ["; ".join(said), *(line for pid, line in found if pid != token[0])]


def _git_folder(root: Path) -> Path | None:
    """`root`'s git folder, read from `.git` (a linked work tree's names it): no git process."""
    dot = root / ".git"
    if dot.is_dir():
        return dot
    try:
        said = dot.read_text(encoding="utf-8").strip()
    except (OSError, ValueError):
        return None
    if not said.startswith("gitdir:"):
        return None
    found = Path(said.removeprefix("gitdir:").strip())
    return found if found.is_absolute() else root / found


def _lock_let_go(root: Path, folder: Path) -> tuple[int, str] | None:
    """Remove `folder`'s index.lock (and the copy of the index made under it) when a killed
    memidx's change of an entry left it: the pid and blob its token named, else None."""
    from memidx.git.judged_unlink import read_once, unlink_judged
    from memidx.git.lock_holders import left_behind

    lock = folder / "index.lock"
    if (read := read_once(lock, TOKEN_MOST)) is None:
        return None
    seen, judged = read
    token = _token_of(judged)
    if token is None or not _a_blob(root, token[1]) or not left_behind(lock, root):
        return None
    try:  # only the lock judged: one let go and taken since is its holder's
        if not unlink_judged(lock, judged, seen):
            return None
    except OSError:  # a folder it may not change: status names the lock, as before
        return None
    copy = f"{EDIT_COPY}-{token[0]}"  # the killed shell's copy, and its hold of the index
    for left in (folder / copy, folder / f"{copy}.lock", folder / f"{copy}.seen"):
        with contextlib.suppress(OSError):  # else removed with the dead copies (index_copy)
            left.unlink(missing_ok=True)
    return token


def _lock_line(folder: Path, pid: int) -> str:
    return (
        f"removed {folder / 'index.lock'}, which a memidx killed while it changed git's index "
        f"left (no process holds it; its shell, pid {pid}, is gone)"
    )


def _swap_line(folder: Path, pid: int) -> str:
    return (
        f"removed {folder / 'index.lock'}, which a memidx killed as it renamed its copy of "
        f"git's index over it left (no process holds it; that memidx, pid {pid}, is gone; "
        "git's index is whole, the copy or as it was)"
    )


def _token(lock: Path) -> tuple[int, str] | None:
    """The pid and object an index.lock memidx took names (`memidx <pid> <object>`), else None."""
    try:
        with lock.open("rb") as file:
            return _token_of(file.read(TOKEN_MOST))
    except OSError:
        return None


def _token_of(data: bytes) -> tuple[int, str] | None:
    """The pid and object `memidx <pid> <object>` names, else None."""
    said = data.split()
    if len(said) != 3 or said[0] != b"memidx" or not said[1].isdigit():
        return None
    name = said[2].decode("ascii", "replace")
    if len(name) not in (40, 64) or any(c not in "0123456789abcdef" for c in name):
        return None
    return int(said[1]), name


def entry_editor(root: Path) -> int | None:
    """The pid of memidx's shell when it holds git's index lock to change one entry of it (a
    take-out or a put-back: its token names a blob), None for any other lock (a move of HEAD:
    a commit)."""
    folder = _git_folder(root)
    token = None if folder is None else _token(folder / "index.lock")
    return token[0] if token is not None and _a_blob(root, token[1]) else None


def _a_blob(root: Path, name: str) -> bool:
    """Whether `name` is a file's blob: an entry's change (index_edit) took the lock, not a move
    of HEAD (memidx.git.move_script, whose token names a commit: killed after HEAD moved, the
    index is not yet brought to it, and only a person can tell what to do)."""
    from memidx.git.repo import GitRepo

    kind = GitRepo(root).run("cat-file", "-t", name, check=False)
    return kind.strip() == b"blob"


def _asides_back(root: Path, notes: Path, token: tuple[int, str] | None) -> list[tuple[int, str]]:
    """The notes' files a memidx now gone moved aside and left: each back at its path when
    nothing is there, dropped when the file there is the same, byte for byte; else kept, and
    `memidx status` names it. One the take-out whose lock was just removed (`token`) moved
    aside is then taken out as that one was doing (`git add -A` took it onto a branch that
    does not hold the note), or kept when it no longer may be."""
    if not notes.is_dir():
        return []
    lines: list[tuple[int, str]] = []
    for aside in sorted(notes.rglob(f".*.md{ASIDE}*")):
        pid, path = _owner(aside)
        if pid is None or not gone_owner(pid, aside):
            continue
        line = aside_back(root, aside, path)
        if line is not None and token is not None and token[0] == pid and not aside.exists():
            line = _taken_out(root, path, token[1]) or line
        if line is not None:
            lines.append((pid, line))
    return lines


def shell_asides_back(root: Path, refs: Iterable[str], pid: int) -> None:
    """Put right the files the move's shell `pid`, now ended, left aside (memidx.git.move_script:
    killed between its move of a file aside and its rm or link back), as the next status would:
    back at its path, or dropped when it holds the bytes HEAD's commit deleted there. Left to
    that status, the memidx that ran the shell said `forgot ...` and nothing of an edit kept in
    a hidden file `git add -A` takes; put back, its own follow judges the file and says so."""
    for ref in refs:
        path = root / ref
        aside = path.with_name(f".{path.name}{ASIDE}{pid}")
        if "\n" not in ref and os.path.lexists(aside) and gone_owner(pid, aside):
            aside_back(root, aside, path)


def _owner(aside: Path) -> tuple[int | None, Path]:
    """The pid a file aside is named for (None when it names none), and its note's path."""
    name, _, pid = aside.name.rpartition(ASIDE)
    pid = pid.split("-")[0]
    return (int(pid) if pid.isdigit() else None), aside.with_name(name.removeprefix("."))


def aside_back(root: Path, aside: Path, path: Path, *, made: bool = True) -> str | None:
    """Put `path`'s file a memidx now gone left at `aside` right, and say so; None when kept.
    `made`: an empty file there is the place made for it, nothing moved in yet."""
    if aside.is_symlink() or not aside.is_file():
        return None
    shown, at = display(_shown(root, aside)), display(_shown(root, path))  # one line each
    try:
        if made and aside.stat().st_size == 0:  # its place made, nothing moved into it yet
            aside.unlink()
            return None
        if not path.exists() and not path.is_symlink():
            if (commit := _forgotten(root, aside, path)) is not None:
                from memidx.git.index_swap import remove_emptied

                aside.unlink()  # put back, the forgotten note came back untracked
                remove_emptied(root, path.parent)
                return (
                    f"removed {shown}, which a memidx killed part way left: the bytes of {at} "
                    f"that {commit[:12]} deleted, so {at} stays forgotten"
                )
            path.hardlink_to(aside)  # never over a file saved there meanwhile
            aside.unlink()
            return f"put {at} back, which a memidx killed part way had moved aside as {shown}"
        if path.is_file() and not path.is_symlink() and path.read_bytes() == aside.read_bytes():
            aside.unlink()
            return f"removed {shown}, the same as {at}, which a memidx killed part way left"
    except OSError:
        return None  # no hard links on this disk, a file saved there just now: status names it
    return None


def _forgotten(root: Path, aside: Path, path: Path) -> str | None:
    """The commit that deleted `path` from HEAD when `aside` holds exactly the bytes it deleted:
    a forget (a share's twin move) killed after it moved the file aside and found it unchanged,
    before its unlink. Put back, the forgotten note came back untracked, for the person's next
    `git add -A`. None when HEAD holds the path, or the bytes are others (an edit: put back)."""
    from memidx.git.repo import GitRepo

    repo, ref = GitRepo(root), _shown(root, path)
    spec = f":(literal){ref}"
    if repo.run("ls-tree", "HEAD", "--", spec, check=False).strip():
        return None
    commit = repo.run("rev-list", "-1", "HEAD", "--", spec, check=False).decode().strip()
    if not commit:
        return None
    blob = repo.run("rev-parse", "-q", "--verify", f"{commit}^:{ref}", check=False).strip()
    ways = ("--no-filters", f"--path={ref}")  # its bytes, or as git adds them (autocrlf)
    said = (repo.run("hash-object", way, "--", str(aside), check=False).strip() for way in ways)
    return commit if blob and blob in said else None


def _taken_out(root: Path, path: Path, blob: str) -> str | None:
    """The take-out a killed memidx was doing, done again under git's index lock (every check
    made anew: HEAD holds nothing there, the file is that blob byte for byte, git's index holds
    it or nothing); None when it was kept."""
    from memidx.children import SHELL
    from memidx.git.index_edit import take_out_entry

    folder = _git_folder(root)
    if SHELL is None or folder is None:
        return None
    ref = _shown(root, path)
    if take_out_entry(root, folder, ref, blob)[0] != 0:
        return None
    return (
        f"took {display(ref)} out of this work tree, as that memidx was doing (the very note it "
        "committed on another branch, which HEAD does not hold)"
    )


def gone_owner(pid: int, aside: Path) -> bool:
    """Whether the memidx that moved `aside` there, `pid`, is gone: no process has that pid, or
    the one that has it started after the move (the pid given again: memidx.process_start);
    never said on Windows."""
    from memidx.process_start import made_at, owner_gone

    if os.name == "nt":
        return False
    try:
        return owner_gone(pid, made_at(aside))
    except OSError:
        return False


def _shown(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
