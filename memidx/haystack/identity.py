"""This clone's writer id, bound to the clone's folder, so a copy is told apart from the original.

Segments are named `<writer id>/<day>.<n>.krd`, so two clones with one id would write the same
file and their next merge would conflict. A copied clone (`cp -a`, a restored backup) brings
`.memidx/writer-id` along, and `.git` too, so nothing inside the clone can tell it from the
original; its folder can: a copy is a new folder (device and inode), the original keeps its
own. `.memidx/writer-clone` holds the device and inode of the folder the id was made for (and
its path, for the notice). When they do not match, the clone takes a fresh id before it
writes, and takes over the segments the copy brought that no commit holds (the original's
unshared records: kept under the new id, since the original may never share them), so no
untracked copy of another clone's segment blocks the next pull. A moved clone (`mv`) keeps its
id on the same file system; across file systems it gets a fresh one, which is harmless.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

from memidx.config import Config
from memidx.drafts import make_folder, read_own, replace_durably
from memidx.errors import MemidxError
from memidx.haystack.own_writers import disown, record_own, recorded_writers
from memidx.haystack.writer import SEGMENT_NAME, held_lock, segment_order
from memidx.portable import sync_folder
from memidx.text import counted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memidx.git.repo import GitRepo

WRITER_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
MAX_STATE = 64 * 1024  # bytes of writer-id (an id) and writer-clone (an id, a hash, a path)
Moved = list[tuple[Path, Path]]


def clone_id(config: Config, notice: Callable[[str], None] | None = None) -> tuple[str, Moved]:
    """This clone's writer id (made on first use), and the segments taken over when the id
    had to be replaced because the clone is a copy; says so in one notice line."""
    state = config.state_dir
    ident, binding = _read_id(state), _binding(config.root)
    if ident is not None and _bound_to(state) == binding:
        return ident, []
    with held_lock(state / "haystack.lock"):  # the writer's lock: no append while it changes
        ident, bound, original = _read_id(state), _bound_to(state), _bound_path(state)
        if ident is not None and bound == binding:
            return ident, []  # another process of this clone just replaced it
        fresh = _new_id()
        # first: a lost .memidx/ never makes its segments a peer's
        if (unrecorded := record_own(config, fresh)) is not None:
            (notice or _say)(
                f"could not record the writer id {fresh} as this clone's "
                f"({unrecorded}): purge will take its segments for a peer's"
            )
        if ident is not None and _original_lives(original, bound):
            disown(config, ident)  # the original writes on as it: what it files is a peer's
        moved = _take_over(config, fresh, notice or _say)  # also a deleted .memidx's
        drop_empty_folders(config, fresh)
        # the id, then the binding: a crash in between redoes it
        _write_whole(state / "writer-id", fresh, config.fsync)
        _write_whole(state / "writer-clone", f"{binding} {config.root}", config.fsync)
    taken = f", keeping {len(moved)} unshared segments under it" if moved else ""
    if ident is not None:
        why = (
            f"{ident} was made before writer ids were bound to their clone"
            if bound is None
            else f"{ident} belongs to the clone at {original or 'another folder'}"
        )
        (notice or _say)(f"this clone's writer id {why} (a copy shares it): it now writes "
                         f"as {fresh}{taken}")  # fmt: skip
    elif moved:
        (notice or _say)(f"this clone writes as {fresh}{taken}")
    return fresh, moved


def _say(text: str) -> None:
    print(f"memidx: notice: {text}", file=sys.stderr)


def _binding(root: Path) -> str:
    """The device and inode of the clone's folder: a copy never has the original's."""
    found = root.stat()
    return f"{found.st_dev} {found.st_ino}"


def _original_lives(original: str | None, bound: str | None) -> bool:
    """Whether the folder a replaced id was bound to is still there, as it was (a copy's
    original, writing on as that id), not gone (a clone moved to another file system)."""
    if original is None or bound is None:
        return False
    try:
        return _binding(Path(original)) == bound
    except OSError:
        return False


def _bound_to(state: Path) -> str | None:
    text = _read(state / "writer-clone")
    return None if text is None else " ".join(text.split()[:2])


def _bound_path(state: Path) -> str | None:
    text = _read(state / "writer-clone")
    parts = None if text is None else text.split(" ", 2)
    return parts[2].strip() if parts and len(parts) == 3 else None


def read_id(state: Path) -> str | None:
    """The clone's writer id as `.memidx/writer-id` holds it, None before the first one."""
    return _read_id(state)


def _read_id(state: Path) -> str | None:
    path = state / "writer-id"
    ident = _read(path)
    if ident is None:
        return None
    ident = ident.strip()
    if not WRITER_ID.fullmatch(ident):
        raise MemidxError(
            f"{path} holds {ident!r}, not a writer id",
            "delete the file; a new id is made on the next filing",
        )
    return ident


def _read(path: Path) -> str | None:
    """The text of `path`, read as it is (a FIFO there was waited on for ever by every
    filing); None when there is none."""
    data = read_own(path, MAX_STATE)
    if data is not None:
        return data.decode("utf-8", "replace")
    if not os.path.lexists(path):
        return None
    raise MemidxError(
        f"{path}: not a file memidx wrote (a FIFO, a link, a folder, or over {MAX_STATE} bytes)",
        "delete it; a new one is made on the next filing",
    )


def _new_id() -> str:
    import platform

    host = "".join(c if c in _ID_CHARS else "-" for c in platform.node().lower())
    return f"{host[:24].strip('-') or 'writer'}-{os.urandom(4).hex()}"


def _write_whole(path: Path, text: str, durable: bool) -> None:
    """Replace the file at once (a temporary file renamed over it): a reader sees the old
    text or the new, never half; `durable` (the fsync setting): a power loss keeps it too."""
    make_folder(path.parent, durable=durable)
    replace_durably(path, (text + "\n").encode("utf-8"), "partial", durable=durable)


def _take_over(config: Config, fresh: str, notice: Callable[[str], None]) -> Moved:
    """Move every segment of another writer id that no commit holds (what the copy brought
    of the original's unshared records, or a replaced id's own) into the fresh id's folder,
    keeping its day; returns (old path, new path) of each. Staged ones (`git add`) move only
    once git's index has let them go; they stay, and `notice` says so, when it does not."""
    if not config.in_git:
        return []  # no merges to conflict
    from memidx.git.repo import GitRepo

    repo = GitRepo(config.root)
    haystack = config.notes_path / "haystack"
    mine = haystack / fresh
    staged = _staged_own(repo, config, haystack)
    out = repo.run("ls-files", "-z", "--others", "--", f"{_ref(config, haystack)}/", check=False)
    found = [config.root / name for name in out.decode("utf-8", "replace").split("\0") if name]
    taken = [
        p
        for p in [*found, *staged]
        if p.parent.parent == haystack and p.parent != mine and SEGMENT_NAME.fullmatch(p.name)
    ]
    kept = [p for p in taken if p in staged]
    if kept and (refused := _unstaged(repo, config, kept)) is not None:
        taken = [p for p in taken if p not in staged]  # staged where they are, as they were
        notice(f"git's index kept {counted(len(kept), 'staged segment')} of a former writer "
               f"id ({refused}), so they were not taken over: they stay staged where they "
               f"are ({_ref(config, kept[0])}...), for your next git commit")  # fmt: skip
    moved: Moved = []
    for path in sorted(taken, key=lambda p: (segment_order(p), p.parent.name)):
        make_folder(mine, durable=config.fsync)
        target = _free_name(mine, path.name)
        path.rename(target)
        moved.append((path, target))
    if config.fsync and moved:  # the new names first: a power loss never loses a segment
        for folder in dict.fromkeys([mine, *(old.parent for old, _ in moved)]):
            sync_folder(folder)
    return moved


def _unstaged(repo: GitRepo, config: Config, staged: list[Path]) -> str | None:
    """Take the staged segments out of git's index, before they move: staged at their old
    path, a `git commit` would commit them too, each record twice (the moved file, untracked,
    is what `haystack commit` commits). What git said when its index refuses (another git
    holds it): they then stay staged where they are, the clone's own all the same."""
    from memidx.git.index_copy import edit_on_copy

    gone = "\0".join(_ref(config, path) for path in staged).encode("utf-8") + b"\0"
    args = ("update-index", "--force-remove", "-z", "--stdin")  # on a copy: index.lock held
    git_dir = Path(repo.run("rev-parse", "--absolute-git-dir").decode().strip())  # to rename
    status, said = edit_on_copy(repo.root, git_dir, args, input_bytes=gone)
    return (said or f"git update-index failed (status {status})") if status else None


def _staged_own(repo: GitRepo, config: Config, haystack: Path) -> set[Path]:
    """The segment files of this clone's former writer ids (memidx.haystack.own_writers) that
    git's index stages (`git add`) and HEAD does not hold: never committed, the writer id lost
    with `.memidx/` never commits them (a peer's, staged by a merge under way, stays)."""
    idents = sorted(i for i in recorded_writers(config) if WRITER_ID.fullmatch(i))
    folders = [f"{_ref(config, haystack / ident)}/" for ident in idents]
    if not folders:
        return set()
    out = repo.run("ls-files", "-z", "--cached", "--", *folders, check=False)
    names = {name for name in out.decode("utf-8", "replace").split("\0") if name}
    if names and (head := repo.head()) is not None:
        out = repo.run("ls-tree", "-r", "-z", "--name-only", head, "--", *folders, check=False)
        names -= set(out.decode("utf-8", "replace").split("\0"))
    return {config.root / name for name in names if (config.root / name).is_file()}


def _ref(config: Config, path: Path) -> str:
    return path.relative_to(config.root).as_posix()


def drop_empty_folders(config: Config, current: str) -> list[Path]:
    """Remove the folders of this clone's former writer ids (memidx.haystack.own_writers)
    that hold nothing: a replaced id's segments were taken over, or are committed and gone
    from this checkout. A peer's folder, and one holding any file, stays; returns those
    removed."""
    haystack = config.notes_path / "haystack"
    gone: list[Path] = []
    for ident in sorted(recorded_writers(config) - {current}):
        folder = haystack / ident
        if not WRITER_ID.fullmatch(ident) or folder.is_symlink() or not folder.is_dir():
            continue
        try:
            folder.rmdir()  # only an empty folder: a file written meanwhile keeps it
        except OSError:
            continue
        gone.append(folder)
    if gone and config.fsync:
        sync_folder(haystack)
    return gone


def _free_name(folder: Path, name: str) -> Path:
    """`name` in `folder`, or the next free number of its day (two ids' segments of a day)."""
    day, number = segment_order(Path(name))
    target = folder / name
    while target.exists():
        number += 1
        target = folder / f"{day}.{number:03d}.krd"
    return target
